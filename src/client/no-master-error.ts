import { RocketMQError } from '../errors.js';

/**
 * No master address is known for a broker group (its route has none yet, or the master is down):
 * calls that must go to the master (offsets, send-back, locks) cannot be made. Retriable: a route
 * refresh usually brings the newly elected master.
 */
export class NoMasterError extends RocketMQError {
  constructor(
    readonly brokerName: string,
    topic?: string,
  ) {
    super(`no master address known for broker ${brokerName}${topic === undefined ? '' : ` of ${topic}`}`, {
      retriable: true,
    });
  }
}
