import { RocketMQError } from '../errors.js';

/**
 * The route names a broker group but no address of it (every broker of the group is down, or the route
 * is not fetched yet): a pull has nowhere to go. Retriable: a route refresh brings it back once a broker
 * of the group registers again.
 */
export class NoBrokerAddressError extends RocketMQError {
  constructor(
    readonly brokerName: string,
    topic?: string,
  ) {
    super(`no address known for broker ${brokerName}${topic === undefined ? '' : ` of ${topic}`}`, {
      retriable: true,
    });
  }
}
