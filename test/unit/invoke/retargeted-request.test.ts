import { describe, expect, it } from 'vitest';
import type { InvokeRequest } from '../../../src/invoke/invoker.js';
import { retargetRequest } from '../../../src/invoke/retargeted-request.js';

describe('retargetRequest', () => {
  it('replaces the function reference and reads the payload only when its own is read', () => {
    let payloadReads = 0;
    const signal = new AbortController().signal;
    const onThrottle = (): void => undefined;
    const event = (): unknown => ({ Records: [] });
    const request: InvokeRequest = {
      functionRef: 'local:./handler.js#handler',
      get payload(): Buffer {
        payloadReads++;
        return Buffer.from('{"Records":[]}');
      },
      event,
      signal,
      onThrottle,
    };

    const retargeted = retargetRequest(request, 'local:/tmp/shim-1.mjs#handler');

    expect(payloadReads).toBe(0);
    expect(retargeted.functionRef).toBe('local:/tmp/shim-1.mjs#handler');
    expect(retargeted.event).toBe(event);
    expect(retargeted.signal).toBe(signal);
    expect(retargeted.onThrottle).toBe(onThrottle);
    expect(retargeted.payload.toString('utf8')).toBe('{"Records":[]}');
    expect(payloadReads).toBe(1);
  });

  it('keeps the payload of a request whose payload getter lives on its prototype', () => {
    class PrototypeRequest implements InvokeRequest {
      readonly functionRef = 'my-function';
      get payload(): Buffer {
        return Buffer.from('{}');
      }
    }

    const retargeted = retargetRequest(new PrototypeRequest(), 'other-function');

    expect(retargeted.payload.toString('utf8')).toBe('{}');
    expect(retargeted.event).toBeUndefined();
  });
});
