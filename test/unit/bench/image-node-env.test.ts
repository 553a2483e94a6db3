import { describe, expect, it } from 'vitest';
import { imageNodeDescription, imageNodeEnv, imageNodeVariables } from '../../../bench/image-node-env.js';

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
      /^as the image runs the poller \(infra\/docker\/Dockerfile\): NODE_ENV=production, /,
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
