import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withCurrentCliReference } from '../support/readme-cli-reference.js';
import { README_PATH, withCurrentReference } from '../support/readme-config-reference.js';

describe('README', () => {
  it('documents the configuration exactly as the schema defines it (npm run readme:config updates it)', () => {
    const readme = readFileSync(README_PATH, 'utf8');
    expect(readme).toBe(withCurrentReference(readme));
  });

  it('documents every command exactly as its --help prints it (npm run readme:cli updates it)', async () => {
    const readme = readFileSync(README_PATH, 'utf8');
    expect(readme).toBe(await withCurrentCliReference(readme));
    // Loads every command module once (dev's included): seconds on a busy machine.
  }, 60_000);

  it('starts with the two commands a newcomer runs on a fresh clone', () => {
    const head = readFileSync(README_PATH, 'utf8').split('\n').slice(0, 15).join('\n');
    expect(head).toContain('npm ci && npm run demo');
    expect(head).toContain('npm ci && npm test');
  });
});
