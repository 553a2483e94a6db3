/**
 * The one writable directory of the poller container, whose root filesystem is read-only
 * (`ReadonlyRootFilesystem`): the image's `/app/.rocketmq-lambda` (infra/docker/Dockerfile: WORKDIR /app,
 * the directory made and owned by the image's user). It holds everything the poller writes:
 * - the health heartbeat that `rocketmq-lambda health` reads (src/poller/health-beat.ts);
 * - the local offset files of BROADCASTING mappings (`offsets.path`, `.rocketmq-lambda/offsets` under the
 *   working directory: src/config/config-defaults.ts);
 * - anything that asks Node for a temporary directory (`TMPDIR`).
 *
 * It is a task volume without a host path: on Fargate, task storage that lives as long as the task. ECS
 * copies into it what the image has at the same path when the image declares it a `VOLUME`, with its
 * owner, so the image's non-root user can write it.
 */
import { LOCAL_STATE_DIR } from '../config/config-defaults.js';

/** The directory, inside the container. */
export const POLLER_STATE_DIR = `/app/${LOCAL_STATE_DIR}`;

/** The task volume's name. */
export const POLLER_STATE_VOLUME = 'poller-state';

/**
 * The container's variables that keep its writes in {@link POLLER_STATE_DIR}, whatever the image sets:
 * the heartbeat file (`ROCKETMQ_LAMBDA_HEALTH_FILE`, src/poller/health-beat.ts) and Node's temporary
 * directory.
 */
export const POLLER_STATE_ENVIRONMENT = [
  { Name: 'ROCKETMQ_LAMBDA_HEALTH_FILE', Value: `${POLLER_STATE_DIR}/health` },
  { Name: 'TMPDIR', Value: POLLER_STATE_DIR },
] as const;

/**
 * The task definition's `Volumes` entry of the state directory (a bind mount: no host, no source path).
 */
export const POLLER_STATE_TASK_VOLUME = { Name: POLLER_STATE_VOLUME } as const;

/**
 * The container's `MountPoints` entry of the state directory.
 */
export const POLLER_STATE_MOUNT_POINT = {
  SourceVolume: POLLER_STATE_VOLUME,
  ContainerPath: POLLER_STATE_DIR,
  ReadOnly: false,
} as const;
