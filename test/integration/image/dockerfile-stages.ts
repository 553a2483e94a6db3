/**
 * A Dockerfile read as stage plans: each stage's COPY and RUN steps (RUN split at `&&` into the commands a
 * host replay can reproduce), its ARGs, WORKDIR, ENV, USER, ENTRYPOINT, HEALTHCHECK and STOPSIGNAL. Anything
 * the replay could not reproduce faithfully is an error naming its line, so a changed Dockerfile fails
 * loudly instead of being half-replayed.
 */
import path from 'node:path';

/** One Dockerfile instruction, continuation lines joined. */
export interface DockerInstruction {
  readonly keyword: string;
  readonly args: string;
  readonly line: number;
}

/** A RUN segment (between `&&`) this replay knows how to reproduce. */
export type RunCommand =
  /** `npm <args>`, run for real in the sandbox (`npm cache ...` excepted: the host's cache is shared). */
  | { readonly kind: 'npm'; readonly args: readonly string[] }
  | { readonly kind: 'chmod'; readonly mode: number; readonly paths: readonly string[] }
  | { readonly kind: 'symlink'; readonly target: string; readonly link: string }
  | { readonly kind: 'mkdir'; readonly paths: readonly string[] }
  | { readonly kind: 'chown'; readonly uid: number; readonly gid: number; readonly paths: readonly string[] }
  /** `find <dir> -type f -name '<glob>' -delete`, run for real (the glob quoted, as the shell passes it). */
  | { readonly kind: 'find-delete'; readonly dir: string; readonly name: string };

/** A file-system step of a stage, with the WORKDIR and ENV in force at that point. */
export type StageStep = { readonly workdir: string; readonly env: Readonly<Record<string, string>> } & (
  | {
      readonly kind: 'copy';
      readonly from: string | undefined;
      readonly sources: readonly string[];
      readonly dest: string;
    }
  | { readonly kind: 'run'; readonly command: RunCommand }
);

/** What a stage does and, for the final stage, how its container starts. */
export interface StagePlan {
  readonly name: string;
  /** The FROM image, with `${ARG}` references to global ARG defaults expanded. */
  readonly base: string;
  /** The stage's and the global (before the first FROM) ARG declarations, with their defaults. */
  readonly args: Readonly<Record<string, string | undefined>>;
  readonly steps: readonly StageStep[];
  readonly workdir: string;
  readonly env: Readonly<Record<string, string>>;
  /** `USER` as numeric ids; undefined when the stage runs as root. */
  readonly user: { readonly uid: number; readonly gid: number } | undefined;
  readonly entrypoint: readonly string[] | undefined;
  readonly healthcheck: readonly string[] | undefined;
  readonly stopSignal: NodeJS.Signals;
}

/**
 * Parses a Dockerfile into stage plans. Throws, naming the line, on anything the replay cannot
 * reproduce faithfully (ADD, SHELL, a RUN with pipes or `;`, an unknown RUN command, ...).
 *
 * @example
 * ```ts
 * const stages = planStages(await readFile('infra/docker/Dockerfile', 'utf8'), 'Dockerfile');
 * stages.at(-1)?.entrypoint; // => ['rocketmq-lambda', 'run']
 * ```
 */
export function planStages(text: string, source: string): StagePlan[] {
  const stages: StagePlan[] = [];
  const globalArgs: Record<string, string | undefined> = {};
  let current: { -readonly [K in keyof StagePlan]: StagePlan[K] } | undefined;
  for (const instruction of parseInstructions(text)) {
    const where = `${source}:${instruction.line}`;
    const { keyword, args } = instruction;
    if (keyword === 'FROM') {
      const flags = args.split(/\s+/).filter((word) => word.startsWith('--'));
      if (flags.length > 0) throw new Error(`${where}: FROM ${flags.join(' ')} is not replayed`);
      const [image = '', as, name] = args.split(/\s+/);
      const base = image.replace(/\$\{(\w+)\}|\$(\w+)/g, (_, braced?: string, bare?: string) => {
        const value = globalArgs[braced ?? bare ?? ''];
        if (value === undefined) throw new Error(`${where}: FROM ${image} names an ARG without a default`);
        return value;
      });
      if (stages.some((stage) => stage.name === base))
        throw new Error(`${where}: FROM an earlier stage is not replayed`);
      current = {
        name: as?.toUpperCase() === 'AS' && name !== undefined ? name : String(stages.length),
        base,
        args: { ...globalArgs },
        steps: [],
        workdir: '/',
        env: {},
        user: undefined,
        entrypoint: undefined,
        healthcheck: undefined,
        stopSignal: 'SIGTERM',
      };
      stages.push(current);
      continue;
    }
    if (keyword === 'ARG' && current === undefined) {
      Object.assign(globalArgs, parseArg(args, where));
      continue;
    }
    if (current === undefined) throw new Error(`${where}: ${keyword} before the first FROM`);
    const stage = current;
    switch (keyword) {
      case 'ARG':
        stage.args = { ...stage.args, ...parseArg(args, where) };
        break;
      case 'LABEL':
      case 'EXPOSE':
      case 'VOLUME':
        break;
      case 'WORKDIR':
        stage.workdir = path.posix.resolve(stage.workdir, args);
        break;
      case 'ENV':
        stage.env = { ...stage.env, ...parseEnv(args, where) };
        break;
      case 'USER':
        stage.user = parseUser(args, where);
        break;
      case 'STOPSIGNAL':
        stage.stopSignal = (args.startsWith('SIG') ? args : `SIG${args}`) as NodeJS.Signals;
        break;
      case 'ENTRYPOINT':
        stage.entrypoint = commandForm(args, where);
        break;
      case 'HEALTHCHECK': {
        const match = /^(?:--\S+\s+)*(CMD\s+(.*)|NONE)$/s.exec(args);
        if (match === null) throw new Error(`${where}: HEALTHCHECK is neither [options] CMD ... nor NONE`);
        stage.healthcheck = match[2] === undefined ? undefined : commandForm(match[2], where);
        break;
      }
      case 'COPY': {
        const words = args.split(/\s+/);
        const flags = words.filter((word) => word.startsWith('--'));
        const paths = words.filter((word) => !word.startsWith('--'));
        const unknown = flags.filter((flag) => !/^--(from|chown|chmod)=|^--link$/.test(flag));
        if (unknown.length > 0 || paths.length < 2) throw new Error(`${where}: COPY ${args} is not replayed`);
        const from = flags.find((flag) => flag.startsWith('--from='))?.slice('--from='.length);
        const dest = paths.at(-1) ?? '';
        stage.steps = [
          ...stage.steps,
          { kind: 'copy', from, sources: paths.slice(0, -1), dest, workdir: stage.workdir, env: stage.env },
        ];
        break;
      }
      case 'RUN':
        for (const segment of args.split('&&')) {
          const command = parseRunCommand(segment.trim(), where);
          stage.steps = [...stage.steps, { kind: 'run', command, workdir: stage.workdir, env: stage.env }];
        }
        break;
      default:
        throw new Error(`${where}: ${keyword} is not replayed on the host (teach runtime-stage.ts)`);
    }
  }
  return stages;
}

/** Instructions with comments dropped and `\`-continued lines joined (the default escape character). */
function parseInstructions(text: string): DockerInstruction[] {
  const instructions: DockerInstruction[] = [];
  let pending = '';
  let startLine = 0;
  text.split('\n').forEach((raw, index) => {
    const line = raw.trimEnd();
    if (line.trimStart().startsWith('#') || (pending === '' && line.trim() === '')) return;
    if (pending === '') startLine = index + 1;
    const continued = line.endsWith('\\');
    pending += `${continued ? line.slice(0, -1) : line} `;
    if (continued) return;
    const match = /^\s*(\S+)\s*(.*)$/s.exec(pending.trim());
    pending = '';
    if (match === null) return;
    instructions.push({
      keyword: (match[1] ?? '').toUpperCase(),
      args: (match[2] ?? '').trim(),
      line: startLine,
    });
  });
  if (pending !== '') throw new Error(`the Dockerfile ends inside a continued line (line ${startLine})`);
  return instructions;
}

function parseEnv(args: string, where: string): Record<string, string> {
  const pairs = args.match(/[A-Za-z_][A-Za-z0-9_]*=("[^"]*"|\S*)/g);
  if (pairs === null) {
    const [key = '', ...rest] = args.split(/\s+/);
    return { [key]: rest.join(' ') };
  }
  if (pairs.join(' ') !== args.replace(/\s+/g, ' '))
    throw new Error(`${where}: ENV ${args} is not KEY=VALUE pairs`);
  return Object.fromEntries(
    pairs.map((pair) => {
      const at = pair.indexOf('=');
      return [pair.slice(0, at), pair.slice(at + 1).replace(/^"(.*)"$/s, '$1')];
    }),
  );
}

function parseArg(args: string, where: string): Record<string, string | undefined> {
  const match = /^([A-Za-z_][A-Za-z0-9_]*)(?:=(.*))?$/.exec(args);
  if (match === null) throw new Error(`${where}: ARG ${args} is not NAME[=default]`);
  return { [match[1] ?? '']: match[2]?.replace(/^"(.*)"$/s, '$1') };
}

function parseUser(args: string, where: string): StagePlan['user'] {
  const match = /^(\d+)(?::(\d+))?$/.exec(args);
  if (match === null)
    throw new Error(
      `${where}: USER ${args} is not numeric uid[:gid]; the host cannot resolve the image's names`,
    );
  const uid = Number(match[1]);
  return uid === 0 ? undefined : { uid, gid: Number(match[2] ?? match[1]) };
}

/** Exec form (a JSON array) as is; shell form as `/bin/sh -c <text>`, as Docker runs it. */
function commandForm(args: string, where: string): string[] {
  if (!args.startsWith('[')) return ['/bin/sh', '-c', args];
  const parsed: unknown = JSON.parse(args);
  if (!Array.isArray(parsed) || parsed.length === 0 || !parsed.every((word) => typeof word === 'string')) {
    throw new Error(`${where}: ${args} is not a JSON array of strings`);
  }
  return parsed;
}

function parseRunCommand(segment: string, where: string): RunCommand {
  if (/[;|`$<>]/.test(segment))
    throw new Error(`${where}: RUN segment "${segment}" uses shell syntax the replay does not reproduce`);
  const [command, ...words] = segment.split(/\s+/);
  const operands = words.filter((word) => !word.startsWith('-'));
  if (command === 'npm' && words.length > 0) return { kind: 'npm', args: words };
  if (command === 'chmod' && operands.length >= 2 && /^[0-7]{3,4}$/.test(operands[0] ?? '')) {
    return { kind: 'chmod', mode: Number.parseInt(operands[0] ?? '', 8), paths: operands.slice(1) };
  }
  if (command === 'ln' && words[0] === '-s' && operands.length === 2) {
    return { kind: 'symlink', target: operands[0] ?? '', link: operands[1] ?? '' };
  }
  if (command === 'mkdir' && operands.length > 0) return { kind: 'mkdir', paths: operands };
  const owner = /^(\d+):(\d+)$/.exec(operands[0] ?? '');
  if (command === 'chown' && owner !== null && operands.length >= 2) {
    return { kind: 'chown', uid: Number(owner[1]), gid: Number(owner[2]), paths: operands.slice(1) };
  }
  const find = /^find (\S+) -type f -name '([^'\s]+)' -delete$/.exec(segment);
  if (find !== null) return { kind: 'find-delete', dir: find[1] ?? '', name: find[2] ?? '' };
  throw new Error(`${where}: RUN "${segment}" is not replayed on the host (teach runtime-stage.ts)`);
}
