/**
 * The logback files a 4.x namesrv and broker need: their `NamesrvStartup` and `BrokerStartup` configure
 * logback by hand from `<rocketmqHome>/conf/logback_namesrv.xml` and `logback_broker.xml` and exit when
 * the file is missing (5.x reads `-Drmq.logback.configurationFile`, jvm-args.ts). Both launchers write
 * our one-file configuration there for a version whose profile says `logbackInHomeConf`.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { logbackConfig } from './broker-config.js';
import type { BrokerVersionProfile } from './broker-version.js';

/** The file names under `<rocketmqHome>/conf`. */
const HOME_CONF_LOGBACK_FILES = { namesrv: 'logback_namesrv.xml', broker: 'logback_broker.xml' } as const;

/**
 * Writes `<rocketmqHome>/conf/logback_{namesrv,broker}.xml` logging to the given files when `version`
 * reads them (nothing otherwise). A broker reads `rocketmqHome` from its properties before it
 * configures logback, so brokers sharing one temp directory can each get a home of their own.
 */
export async function writeHomeConfLogback(
  version: Pick<BrokerVersionProfile, 'logbackInHomeConf'>,
  rocketmqHome: string,
  logFiles: { namesrv?: string | undefined; broker?: string | undefined },
): Promise<void> {
  if (!version.logbackInHomeConf) return;
  const confDir = join(rocketmqHome, 'conf');
  await mkdir(confDir, { recursive: true });
  await Promise.all(
    (['namesrv', 'broker'] as const).map(async (role) => {
      const logFile = logFiles[role];
      if (logFile !== undefined) {
        await writeFile(join(confDir, HOME_CONF_LOGBACK_FILES[role]), logbackConfig(logFile));
      }
    }),
  );
}
