/**
 * The broker-side checks a poller's mappings meet when it starts, run on their own (for
 * `rocketmq-lambda validate --connect`): each topic has a route on the name servers, and each SQL92
 * filter compiles on a broker of its topic (CHECK_CLIENT_CONFIG, as the consumer asks before its first pull).
 */
import type { RocketMQClient } from '../client/rocketmq-client.js';
import type { MappingConfig } from '../config/run-config.js';
import { masterAddress } from '../protocol/route-data.js';
import { buildSubscriptionData } from '../protocol/subscription.js';
import { describeError } from '../util/describe-error.js';

/**
 * One line per problem (`mappings.orders: ...`), empty when every mapping passes. Never throws for a
 * broker's or name server's answer: each becomes a problem.
 */
export async function mappingBrokerProblems(
  mappings: readonly MappingConfig[],
  client: Pick<RocketMQClient, 'clientId' | 'nameServer' | 'broker'>,
): Promise<string[]> {
  const problems: string[] = [];
  for (const mapping of mappings) {
    const where = `mappings.${mapping.name}`;
    let route: Awaited<ReturnType<RocketMQClient['nameServer']['getRoute']>>;
    try {
      route = await client.nameServer.getRoute(mapping.topic, { refresh: true });
    } catch (error) {
      problems.push(
        `${where}.topic: ${mapping.topic}: no route on the name servers: ${describeError(error)}`,
      );
      continue;
    }
    if (mapping.filter.type !== 'SQL92') continue;
    const address = route.brokerDatas.map(masterAddress).find((found) => found !== undefined);
    if (address === undefined) {
      problems.push(`${where}.topic: ${mapping.topic}: no broker master to check the SQL92 filter on`);
      continue;
    }
    try {
      await client.broker.checkClientConfig(address, {
        clientId: client.clientId,
        group: mapping.consumerGroup,
        subscriptionData: buildSubscriptionData(mapping.topic, mapping.filter.expression, 'SQL92'),
      });
    } catch (error) {
      problems.push(
        `${where}.filter: the broker ${address} refuses the SQL92 filter: ${describeError(error)} (a broker without enablePropertyFilter=true refuses every SQL92 filter)`,
      );
    }
  }
  return problems;
}
