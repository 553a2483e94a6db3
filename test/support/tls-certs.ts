/**
 * Certificates for TLS tests, made with the openssl CLI once per test run into a temp directory that
 * every worker of the run shares (named after the vitest main process; the first worker to finish
 * making them wins, the others read its files), removed by a later run once that process is gone.
 * They are: a private CA with a server and a client certificate,
 * an unrelated CA with a server certificate, an expired and a self-signed server certificate. EC P-256 keys in PKCS#8
 * PEM (`BEGIN PRIVATE KEY`), the only private-key format Netty (the broker's TLS) reads.
 */
import { execFile } from 'node:child_process';
import { createPrivateKey } from 'node:crypto';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A certificate and its key, as files (for the broker JVM) and as PEM text (for Node). */
export interface TestCertificate {
  certPath: string;
  keyPath: string;
  certPem: string;
  keyPem: string;
}

/** Everything {@link tlsTestCerts} makes. */
export interface TlsTestCerts {
  /** The temp directory holding every file. */
  dir: string;
  /** Our private CA (self-signed, CA:TRUE). */
  ca: TestCertificate;
  /** Signed by `ca`, SAN `IP:127.0.0.1` and `DNS:localhost`, serverAuth. */
  server: TestCertificate;
  /** Signed by `ca`, clientAuth: what a client presents to an mTLS broker. */
  client: TestCertificate;
  /** A CA that has nothing to do with `ca`. */
  otherCa: TestCertificate;
  /** Signed by `otherCa`, same SANs as `server`, serverAuth and clientAuth (usable on both sides). */
  otherServer: TestCertificate;
  /** Signed by `ca`, same SANs as `server`, valid for one day in January 2020. */
  expiredServer: TestCertificate;
  /** A self-signed server certificate (CA:FALSE), same SANs as `server`: signed by no CA at all. */
  selfSignedServer: TestCertificate;
}

const OPENSSL_HINT = 'install it (Debian/Ubuntu: apt-get install -y openssl)';
/** Bump when the set of files changes, so a run never reads an older layout. */
const LAYOUT_VERSION = 1;
const DIR_PREFIX = 'rocketmq-lambda-tls-';
const COMPLETE_MARKER = '.complete';
/** `<prefix>v1-run<pid>` (a run's directory) and `<prefix>staging-<pid>-XXXXXX` (one being made). */
const OWNED_DIR = new RegExp(`^${DIR_PREFIX}(?:v\\d+-run|staging-)(\\d+)`);
const SERVER_SAN = 'subjectAltName=IP:127.0.0.1,DNS:localhost';

let made: Promise<TlsTestCerts> | undefined;

/**
 * The test certificates of this run, made on first use and shared by every test file. Rejects with a
 * clear message when the openssl CLI is missing.
 *
 * @example
 * ```ts
 * const certs = await tlsTestCerts();
 * const client = new RocketMQClient({ nameServerAddresses: addr, tls: { ca: certs.ca.certPem } });
 * ```
 */
export function tlsTestCerts(): Promise<TlsTestCerts> {
  made ??= generate();
  return made;
}

/**
 * `certificate`'s key encrypted with `passphrase` (AES-256-CBC): PKCS#8 (`BEGIN ENCRYPTED PRIVATE KEY`),
 * or SEC1 with a `Proc-Type: 4,ENCRYPTED` header (openssl's traditional format). What the tests of a key
 * that a wrong passphrase, or none, cannot open write or pass.
 */
export function encryptedKeyPem(
  certificate: TestCertificate,
  passphrase: string,
  type: 'pkcs8' | 'sec1' = 'pkcs8',
): string {
  return createPrivateKey(certificate.keyPem)
    .export({ format: 'pem', type, cipher: 'aes-256-cbc', passphrase })
    .toString();
}

async function generate(): Promise<TlsTestCerts> {
  await assertOpenssl();
  removeDirsOfEndedRuns();
  // vitest workers are children of the run's main process: its pid names the run.
  const dir = join(tmpdir(), `${DIR_PREFIX}v${LAYOUT_VERSION}-run${process.ppid}`);
  if (!existsSync(join(dir, COMPLETE_MARKER))) {
    const staging = mkdtempSync(join(tmpdir(), `${DIR_PREFIX}staging-${process.pid}-`));
    try {
      await makeAll(staging);
      writeFileSync(join(staging, COMPLETE_MARKER), '');
      renameSync(staging, dir);
    } catch (error) {
      // Another worker renamed its complete set into place first: use that one.
      const code = (error as NodeJS.ErrnoException).code;
      if ((code !== 'ENOTEMPTY' && code !== 'EEXIST') || !existsSync(join(dir, COMPLETE_MARKER))) throw error;
    } finally {
      rmSync(staging, { recursive: true, force: true });
    }
  }
  const named = (name: string): TestCertificate => read(join(dir, `${name}.pem`), join(dir, `${name}.key`));
  return {
    dir,
    ca: named('ca'),
    server: named('server'),
    client: named('client'),
    otherCa: named('other-ca'),
    otherServer: named('other-server'),
    expiredServer: named('expired-server'),
    selfSignedServer: named('self-signed-server'),
  };
}

/** Writes every certificate and key into `dir` as `<name>.pem` and `<name>.key`. */
async function makeAll(dir: string): Promise<void> {
  const file = (name: string): string => join(dir, name);

  const ca = await selfSigned(dir, 'ca', 'rocketmq-lambda test CA', [
    'basicConstraints=critical,CA:TRUE',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  const otherCa = await selfSigned(dir, 'other-ca', 'unrelated test CA', [
    'basicConstraints=critical,CA:TRUE',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  await selfSigned(dir, 'self-signed-server', 'localhost', [
    'basicConstraints=critical,CA:FALSE',
    'keyUsage=critical,digitalSignature',
    'extendedKeyUsage=serverAuth',
    SERVER_SAN,
  ]);
  await signedLeaf(dir, ca, 'server', 'localhost', ['extendedKeyUsage=serverAuth', SERVER_SAN]);
  await signedLeaf(dir, ca, 'client', 'rocketmq-lambda test client', ['extendedKeyUsage=clientAuth']);
  await signedLeaf(dir, otherCa, 'other-server', 'localhost', [
    'extendedKeyUsage=serverAuth,clientAuth',
    SERVER_SAN,
  ]);

  // `openssl x509 -req` cannot back-date; `openssl ca` takes explicit start and end dates.
  const expiredKey = await newKey(dir, 'expired-server');
  await openssl(['req', '-new', '-key', expiredKey, '-subj', '/CN=localhost', '-out', file('expired.csr')]);
  writeFileSync(file('index.txt'), '');
  writeFileSync(file('serial'), '1000\n');
  writeFileSync(
    file('ca.cnf'),
    [
      '[ca]',
      'default_ca = test_ca',
      '[test_ca]',
      `database = ${file('index.txt')}`,
      `new_certs_dir = ${dir}`,
      `serial = ${file('serial')}`,
      'default_md = sha256',
      'policy = any',
      'unique_subject = no',
      '[any]',
      'commonName = supplied',
      '',
    ].join('\n'),
  );
  writeFileSync(
    file('expired.ext'),
    ['basicConstraints=CA:FALSE', 'extendedKeyUsage=serverAuth', SERVER_SAN, ''].join('\n'),
  );
  await openssl([
    'ca',
    '-batch',
    '-notext',
    '-config',
    file('ca.cnf'),
    '-cert',
    ca.certPath,
    '-keyfile',
    ca.keyPath,
    '-in',
    file('expired.csr'),
    '-out',
    file('expired-server.pem'),
    '-startdate',
    '20200101000000Z',
    '-enddate',
    '20200102000000Z',
    '-extfile',
    file('expired.ext'),
  ]);
}

/** Removes the directories of runs (and half-made ones of workers) whose process has ended. */
function removeDirsOfEndedRuns(): void {
  for (const name of readdirSync(tmpdir())) {
    const pid = Number(OWNED_DIR.exec(name)?.[1]);
    if (Number.isInteger(pid) && pid > 0 && !isAlive(pid)) {
      rmSync(join(tmpdir(), name), { recursive: true, force: true });
    }
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function selfSigned(
  dir: string,
  name: string,
  commonName: string,
  extensions: readonly string[],
): Promise<TestCertificate> {
  const keyPath = await newKey(dir, name);
  const certPath = join(dir, `${name}.pem`);
  await openssl([
    'req',
    '-x509',
    '-new',
    '-key',
    keyPath,
    '-sha256',
    '-days',
    '3650',
    '-subj',
    `/CN=${commonName}`,
    ...extensions.flatMap((extension) => ['-addext', extension]),
    '-out',
    certPath,
  ]);
  return read(certPath, keyPath);
}

async function signedLeaf(
  dir: string,
  issuer: TestCertificate,
  name: string,
  commonName: string,
  extensions: readonly string[],
): Promise<TestCertificate> {
  const keyPath = await newKey(dir, name);
  const csrPath = join(dir, `${name}.csr`);
  const extPath = join(dir, `${name}.ext`);
  const certPath = join(dir, `${name}.pem`);
  await openssl(['req', '-new', '-key', keyPath, '-subj', `/CN=${commonName}`, '-out', csrPath]);
  writeFileSync(
    extPath,
    [
      'basicConstraints=CA:FALSE',
      'keyUsage=critical,digitalSignature,keyEncipherment',
      ...extensions,
      '',
    ].join('\n'),
  );
  await openssl([
    'x509',
    '-req',
    '-in',
    csrPath,
    '-CA',
    issuer.certPath,
    '-CAkey',
    issuer.keyPath,
    '-set_serial',
    `0x${Date.now().toString(16)}${Math.floor(Math.random() * 0xffff).toString(16)}`,
    '-days',
    '825',
    '-sha256',
    '-extfile',
    extPath,
    '-out',
    certPath,
  ]);
  return read(certPath, keyPath);
}

/** A new P-256 key; `genpkey` writes PKCS#8 (`BEGIN PRIVATE KEY`). */
async function newKey(dir: string, name: string): Promise<string> {
  const keyPath = join(dir, `${name}.key`);
  await openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', keyPath]);
  return keyPath;
}

function read(certPath: string, keyPath: string): TestCertificate {
  return {
    certPath,
    keyPath,
    certPem: readFileSync(certPath, 'utf8'),
    keyPem: readFileSync(keyPath, 'utf8'),
  };
}

async function assertOpenssl(): Promise<void> {
  try {
    await openssl(['version']);
  } catch (cause) {
    throw new Error(
      `the TLS tests make their certificates with the openssl CLI, which could not be run: ${OPENSSL_HINT}`,
      {
        cause,
      },
    );
  }
}

function openssl(args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('openssl', [...args], { timeout: 30_000 }, (error, stdout, stderr) => {
      if (error === null) {
        resolve(stdout);
        return;
      }
      const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
      reject(
        new Error(
          missing
            ? `openssl is not on PATH: ${OPENSSL_HINT}`
            : `openssl ${args[0] ?? ''} failed: ${stderr.trim() || error.message}`,
          { cause: error },
        ),
      );
    });
  });
}
