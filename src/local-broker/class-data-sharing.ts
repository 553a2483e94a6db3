/**
 * Application class data sharing (AppCDS) for the local namesrv and broker JVMs: a static archive of the
 * classes they load while booting (about 3,900, RocketMQ's, Netty's and the JDK's), kept in the jar cache
 * directory and mapped by every later JVM, which then skips parsing and verifying them. The broker's boot
 * took about a third less CPU with it (measured side by side on the shared 2-core machine).
 *
 * The first start without an archive runs both JVMs with `-XX:DumpLoadedClassList` (each writes the
 * classes it loads as it loads them); once the broker is ready, a background `sh` (niced, detached: it
 * finishes even when this process exits first) dumps the archive from both lists with `-Xshare:dump`,
 * checks that a JVM maps it (`-Xshare:on ... -version` fails otherwise) and only then moves it into place.
 * `-XX:ArchiveClassesAtExit` is no use here: it dumps when the JVM exits, and a broker is stopped with a
 * SIGKILL 3 s after its SIGTERM, before its shutdown is over.
 *
 * The archive is named after the jar list (names, sizes, times) and the Java binary (its real path, size
 * and time), so new jars or another JDK make a new one. A JVM that still refuses an archive runs on
 * without it (`-Xshare:auto`, the default), as if there were none. `ROCKETMQ_LAMBDA_CDS=off` turns it off.
 */
import { spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import type { Logger } from '../util/logger.js';

/** A lock older than this is from a dump that died: another may start. */
const STALE_LOCK_MS = 10 * 60_000;

/** The class-data-sharing flags of one local RocketMQ start, and what to do once it is ready. */
export interface ClassDataSharing {
  /** Flags for the JVM `name` (namesrv, broker, ...), before the main class. */
  jvmFlags(name: string): string[];
  /** Once the JVMs booted: starts making the archive in the background when this start recorded lists. */
  booted(): void;
}

const OFF: ClassDataSharing = { jvmFlags: () => [], booted: () => undefined };

/**
 * The class data sharing of JVMs run with `libDir`'s jars, archived under `<cacheDir>/cds`. Never
 * throws: anything in the way (no Java found on PATH, an unwritable cache) means no sharing.
 */
export function classDataSharing(
  options: {
    cacheDir: string;
    libDir: string;
    env: NodeJS.ProcessEnv;
    javaFlags: readonly string[];
    classpath: string;
  },
  log: Logger,
): ClassDataSharing {
  if (options.env.ROCKETMQ_LAMBDA_CDS === 'off') return OFF;
  let archive: string;
  let dir: string;
  try {
    dir = join(options.cacheDir, 'cds');
    archive = join(dir, `local-${archiveKey(options.libDir, options.env)}.jsa`);
    if (existsSync(archive)) {
      return {
        jvmFlags: () => [`-XX:SharedArchiveFile=${archive}`, '-Xshare:auto'],
        booted: () => undefined,
      };
    }
    mkdirSync(dir, { recursive: true });
  } catch (error) {
    log.debug({ err: error }, 'no class data sharing');
    return OFF;
  }
  const lists: string[] = [];
  return {
    jvmFlags: (name) => {
      const list = join(dir, `classes-${name}-${randomUUID()}.lst`);
      lists.push(list);
      return [`-XX:DumpLoadedClassList=${list}`];
    },
    booted: () => {
      try {
        dumpInBackground({ archive, lists, javaFlags: options.javaFlags, classpath: options.classpath }, log);
      } catch (error) {
        log.debug({ err: error }, 'could not start making the class data sharing archive');
      }
    },
  };
}

/** The archive's name: a hash of the jars and of the Java binary on PATH. */
function archiveKey(libDir: string, env: NodeJS.ProcessEnv): string {
  const hash = createHash('sha256');
  for (const jar of readdirSync(libDir).sort()) {
    const stat = statSync(join(libDir, jar));
    hash.update(`${jar}\0${stat.size}\0${stat.mtimeMs}\n`);
  }
  const java = javaOnPath(env);
  const jvm = join(dirname(dirname(java)), 'lib', 'server', 'libjvm.so');
  for (const file of [java, jvm]) {
    if (!existsSync(file)) continue;
    const stat = statSync(file);
    hash.update(`${file}\0${stat.size}\0${stat.mtimeMs}\n`);
  }
  return hash.digest('hex').slice(0, 16);
}

/** The real path of the `java` that `spawn('java')` runs. */
function javaOnPath(env: NodeJS.ProcessEnv): string {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, 'java');
    if (dir !== '' && existsSync(candidate)) return realpathSync(candidate);
  }
  throw new Error('java is not on PATH');
}

/**
 * Merges the class lists written so far into one and starts the detached dump (unless another process
 * holds the lock): dump to a temporary file, check that it maps, move it into place, clean up.
 */
function dumpInBackground(
  input: { archive: string; lists: readonly string[]; javaFlags: readonly string[]; classpath: string },
  log: Logger,
): void {
  const lock = `${input.archive}.lock`;
  if (existsSync(lock) && Date.now() - statSync(lock).mtimeMs < STALE_LOCK_MS) return;
  writeFileSync(lock, String(process.pid));
  const classes = new Set<string>();
  for (const list of input.lists) {
    if (!existsSync(list)) continue;
    for (const line of readFileSync(list, 'utf8').split('\n')) {
      // Comments, lambda and proxy entries are left out; a class name is one word.
      if (/^[\w/$]+$/.test(line)) classes.add(line);
    }
  }
  const merged = `${input.archive}.${randomUUID()}.lst`;
  writeFileSync(merged, `${[...classes].join('\n')}\n`);
  const temporary = `${input.archive}.${randomUUID()}.tmp`;
  const script = [
    'archive=$1; tmp=$2; cp=$3; list=$4; lock=$5; flags=$6; shift 6',
    // Whatever happens, only the archive stays (the class lists are the remaining arguments).
    'trap \'rm -f "$tmp" "$list" "$lock" "$@"\' EXIT',
    'nice -n 10 java -Xshare:dump -XX:SharedClassListFile="$list" -XX:SharedArchiveFile="$tmp" $flags -cp "$cp" >/dev/null 2>&1 &&',
    'java -Xshare:on -XX:SharedArchiveFile="$tmp" $flags -cp "$cp" -version >/dev/null 2>&1 &&',
    'mv "$tmp" "$archive"',
  ].join('\n');
  const child = spawn(
    'sh',
    [
      '-c',
      script,
      'rocketmq-lambda-cds',
      input.archive,
      temporary,
      input.classpath,
      merged,
      lock,
      input.javaFlags.join(' '),
      ...input.lists,
    ],
    { stdio: 'ignore', detached: true },
  );
  child.on('error', (error) => log.debug({ err: error }, 'could not make the class data sharing archive'));
  child.unref();
  log.debug({ archive: input.archive, classes: classes.size }, 'making the class data sharing archive');
}
