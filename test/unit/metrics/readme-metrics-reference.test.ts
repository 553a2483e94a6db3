import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EMF_METRICS } from '../../../src/metrics/emf-document.js';
import { METRICS } from '../../../src/metrics/metric-catalog.js';
import { metricsReference } from '../../../src/metrics/metrics-reference.js';
import { README_PATH } from '../../support/readme-block.js';
import { withCurrentMetricsReference } from '../../support/readme-metrics-reference.js';

describe('README metrics reference', () => {
  it('documents the metrics exactly as the registry has them (npm run readme:metrics updates it)', () => {
    const readme = readFileSync(README_PATH, 'utf8');
    expect(readme).toContain('## Metrics\n');
    expect(readme).toBe(withCurrentMetricsReference(readme));
  });

  it('lists every registry metric with its type and every EMF metric with its unit', () => {
    const reference = metricsReference();
    for (const metric of Object.values(METRICS)) {
      expect(reference).toContain(`| \`${metric.name}\` | ${metric.type} |`);
    }
    for (const metric of Object.values(EMF_METRICS)) {
      expect(reference).toContain(`| \`${metric.name}\` | ${metric.unit} |`);
    }
  });
});
