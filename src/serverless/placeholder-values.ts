/**
 * Values copied from an example that cannot work in AWS: placeholder images (`example`, `<...>`),
 * loopback name servers (the tasks run in a VPC, not on the deployer's machine) and placeholder subnet
 * or security group ids. A deploy with them creates a service whose tasks never start or never connect,
 * which CloudFormation reports only after its rollback, minutes later. In the stages `local` and `dev`
 * (the Framework's default stage, and the one `rocketmq-lambda dev` and the example service use with a
 * local broker) they are warnings; in any other stage they are refused at package time.
 */
import { type KeyPath, problemLine } from '../config/config-problem.js';
import { type CfnString, type CfnStringList, isCfnIntrinsic } from './cfn-intrinsic.js';
import type { RocketMQCustomOptions } from './rocketmq-custom-schema.js';

/**
 * Stages where placeholders only warn.
 */
export const PLACEHOLDER_TOLERANT_STAGES: readonly string[] = ['local', 'dev'];

/** Hex runs that example ids are made of. */
const EXAMPLE_HEX_RUNS = ['0123456789abcdef', '12345678', 'abcdef01'];
/** `<account>` and the like. */
const ANGLE_PLACEHOLDER = /<[^>]*>/;

/**
 * The placeholder values of `custom` (under `basePath`): problems outside the tolerant stages, warnings
 * inside them.
 */
export function placeholderFindings(
  custom: RocketMQCustomOptions,
  stage: string,
  basePath: KeyPath,
): { problems: string[]; warnings: string[] } {
  const found: string[] = [];
  const at = (path: KeyPath, message: string) =>
    found.push(problemLine({ path: [...basePath, ...path], message }));

  const image = custom.image;
  if (typeof image === 'string' && isPlaceholderImage(image)) {
    at(
      ['image'],
      `${JSON.stringify(image)} is a placeholder, not a published image (leave image out for the default)`,
    );
  }
  for (const address of nameServerAddresses(custom.nameServers)) {
    if (isLoopback(address)) {
      at(
        ['nameServers'],
        `${address} is a loopback address: the poller tasks run in your VPC and cannot reach it (give addresses the VPC reaches)`,
      );
    }
  }
  // A list intrinsic (a Ref to a list parameter) is filled at deploy time: nothing to look at here.
  listedIds(custom.vpc.subnetIds).forEach((id, index) => {
    if (isPlaceholderId(id, 'subnet')) at(['vpc', 'subnetIds', index], placeholderIdMessage(id));
  });
  listedIds(custom.vpc.securityGroupIds).forEach((id, index) => {
    if (isPlaceholderId(id, 'sg')) at(['vpc', 'securityGroupIds', index], placeholderIdMessage(id));
  });

  if (PLACEHOLDER_TOLERANT_STAGES.includes(stage)) {
    return { problems: [], warnings: found.map((line) => `${line} (allowed in stage "${stage}" only)`) };
  }
  const tolerant = PLACEHOLDER_TOLERANT_STAGES.join(' and ');
  return {
    problems: found.map((line) => `${line} (stage "${stage}"; only ${tolerant} allow it)`),
    warnings: [],
  };
}

function listedIds(list: CfnStringList | undefined): readonly CfnString[] {
  return Array.isArray(list) ? list : [];
}

function isPlaceholderImage(image: string): boolean {
  return (
    ANGLE_PLACEHOLDER.test(image) || image.split(/[/.:@]/).some((part) => part.toLowerCase() === 'example')
  );
}

function nameServerAddresses(nameServers: RocketMQCustomOptions['nameServers']): string[] {
  if (isCfnIntrinsic(nameServers)) return [];
  const list = typeof nameServers === 'string' ? nameServers.split(';') : nameServers;
  return list.map((address) => address.trim()).filter((address) => address !== '');
}

function isLoopback(address: string): boolean {
  const host = address
    .replace(/:\d+$/, '')
    .replace(/^\[(.*)\]$/, '$1')
    .toLowerCase();
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host === '::1' ||
    host === '0.0.0.0' ||
    /^127(\.\d{1,3}){3}$/.test(host)
  );
}

function isPlaceholderId(id: CfnString, prefix: 'subnet' | 'sg'): boolean {
  if (isCfnIntrinsic(id) || !id.startsWith(`${prefix}-`)) return false;
  const digits = id.slice(prefix.length + 1);
  return (
    ANGLE_PLACEHOLDER.test(digits) ||
    /[^0-9a-f]/.test(digits) ||
    /^(.)\1*$/.test(digits) ||
    EXAMPLE_HEX_RUNS.some((run) => digits.startsWith(run))
  );
}

function placeholderIdMessage(id: CfnString): string {
  return `${JSON.stringify(id)} looks like a placeholder, not an id from your VPC`;
}
