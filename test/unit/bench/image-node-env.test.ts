import { describe, expect, it } from 'vitest';
import {
  imageNode,
  imageNodeDescription,
  imageNodeEnv,
  imageNodeMajor,
  imageNodeVariables,
} from '../../../bench/image-node-env.js';

describe('imageNodeVariables', () => {
  it('reads NODE_ENV and NODE_OPTIONS from the ENV lines, continued lines and quotes included', () => {
    const dockerfile = [
      'FROM node:22',
      'ENV NODE_ENV=production \\',
      '    ROCKETMQ_LAMBDA_HEALTH_FILE=/app/x \\',
      '    NODE_OPTIONS="--max-semi-space-size=32 --abort-on-uncaught-exception"',
      'RUN echo NODE_OPTIONS=--not-this',
    ].join('\n');
    expect(imageNodeVariables(dockerfile)).toEqual({
      NODE_ENV: 'production',
      NODE_OPTIONS: '--max-semi-space-size=32 --abort-on-uncaught-exception',
    });
    expect(imageNodeVariables('FROM node:22\n')).toEqual({});
  });

  it("reads the image's own Dockerfile", () => {
    expect(imageNodeVariables().NODE_ENV).toBe('production');
    expect(imageNodeDescription()).toMatch(
      /^as the image runs the poller \(infra\/docker\/Dockerfile\): Node 22\.x, NODE_ENV=production, /,
    );
    expect(imageNodeDescription({ NODE_ENV: 'production' }, 'v22.23.5')).toBe(
      'as the image runs the poller (infra/docker/Dockerfile): Node v22.23.5, NODE_ENV=production, no NODE_OPTIONS',
    );
  });
});

describe('imageNodeMajor', () => {
  it("reads the Node line of the base image's default, a registry path included", () => {
    expect(imageNodeMajor()).toBe(22);
    expect(
      imageNodeMajor('# ARG NODE_IMAGE=node:18\nARG NODE_IMAGE=node:24-bookworm-slim\nFROM ${NODE_IMAGE}'),
    ).toBe(24);
    expect(imageNodeMajor('ARG NODE_IMAGE=public.ecr.aws/docker/library/node:22.15-slim@sha256:ab')).toBe(22);
  });

  it('names the Dockerfile when the line is missing', () => {
    expect(() => imageNodeMajor('FROM node:22\n')).toThrow(
      /infra\/docker\/Dockerfile has no "ARG NODE_IMAGE=node:<major>/,
    );
  });
});

describe('imageNode', () => {
  const major = Number(process.versions.node.split('.')[0]);

  it("keeps this process's node when it runs the image's line, installing nothing", async () => {
    const own = { path: '/opt/node/bin/node', version: `v${major}.9.9` };
    const node = await imageNode(major, own, () => Promise.reject(new Error('must not install')));
    expect(node).toBe(own);
  });

  it("installs the line's binary otherwise and checks what it reports", async () => {
    const installed: number[] = [];
    const install = (line: number): Promise<string> => {
      installed.push(line);
      return Promise.resolve(process.execPath);
    };
    const other = { path: '/opt/old/node', version: 'v1.0.0' };
    await expect(imageNode(major, other, install)).resolves.toEqual({
      path: process.execPath,
      version: process.version,
    });
    await expect(imageNode(major + 1, other, install)).rejects.toThrow(
      `${process.execPath} reports ${process.version}, not Node ${major + 1}`,
    );
    expect(installed).toEqual([major, major + 1]);
  });

  it('refuses a line the bench pins no release of, saying what to do', async () => {
    await expect(imageNode(23, { path: '/x', version: 'v20.0.0' })).rejects.toThrow(
      /the image runs Node 23 .*pins a release of Node 22 only \(test\/support\/node22\.ts\): run the bench under Node 23, or pin a 23\.x release there/,
    );
  });
});

describe('imageNodeEnv', () => {
  it("replaces the harness's NODE_OPTIONS with the image's and keeps the rest", () => {
    const env = imageNodeEnv({ PATH: '/bin', NODE_OPTIONS: '--inspect', LOG_LEVEL: 'debug' });
    expect(env.PATH).toBe('/bin');
    expect(env.LOG_LEVEL).toBe('debug');
    expect(env.NODE_ENV).toBe('production');
    expect(env.NODE_OPTIONS).toBe(imageNodeVariables().NODE_OPTIONS);
    expect(imageNodeEnv({}).LOG_LEVEL).toBe('warn');
  });
});
