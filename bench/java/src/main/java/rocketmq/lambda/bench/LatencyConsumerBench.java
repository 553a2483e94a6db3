/*
 * The Java side of the latency scenario (bench/latency-scenario.ts): Apache RocketMQ's own
 * DefaultMQPushConsumer (rocketmq-client 5.3.3) at its defaults (20 consume threads, one message per
 * listener call; it has no batching window), noting for every measured message how long ago the
 * producer handed it over (user property benchSentAtUs, microseconds since the epoch) and how long ago
 * the broker stored it, both against one Instant.now() taken as the listener is entered, in ms with
 * microsecond precision: the same measure as bench/latency-handler.ts. Prints "BENCH_READY" once it
 * holds every queue of the topic, then
 *
 *   latency <namesrv> <topic> <group> <queues> <expectedMeasured> <timeoutMs>
 *     BENCH_RESULT {measured, sentToHandlerMs: [...], storeToHandlerMs: [...]}
 */
package rocketmq.lambda.bench;

import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;

public final class LatencyConsumerBench {
    private static final String SENT_AT_PROPERTY = "benchSentAtUs";
    private static final String PHASE_PROPERTY = "benchPhase";
    private static final String MEASURED_PHASE = "measured";
    private static final long HELD_POLL_MS = 50;
    private static final int START_ATTEMPTS = 3;
    private static final long START_RETRY_DELAY_MS = 1000;

    private LatencyConsumerBench() {
    }

    public static void main(String[] args) {
        try {
            if (args.length == 7 && "latency".equals(args[0])) {
                latency(args[1], args[2], args[3], Integer.parseInt(args[4]), Integer.parseInt(args[5]),
                    Long.parseLong(args[6]));
            } else {
                System.err.println("usage: latency <namesrv> <topic> <group> <queues> <expectedMeasured> <timeoutMs>");
                System.exit(2);
            }
            System.exit(0);
        } catch (Throwable e) {
            e.printStackTrace();
            System.exit(1);
        }
    }

    private static void latency(String namesrv, String topic, String group, int queues, int expected,
        long timeoutMs) throws Exception {
        long deadline = System.currentTimeMillis() + timeoutMs;
        double[] sentToHandler = new double[expected];
        double[] storeToHandler = new double[expected];
        AtomicInteger measured = new AtomicInteger();
        // Counted after each write, so that the thread that sees the last count sees every write.
        AtomicInteger written = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(1);
        MessageListenerConcurrently listener = (messages, context) -> {
            long nowUs = epochMicros();
            for (MessageExt message : messages) {
                if (!MEASURED_PHASE.equals(message.getUserProperty(PHASE_PROPERTY))) {
                    continue;
                }
                int index = measured.getAndIncrement();
                if (index < expected) {
                    long sentAtUs = Long.parseLong(message.getUserProperty(SENT_AT_PROPERTY));
                    sentToHandler[index] = (nowUs - sentAtUs) / 1000.0;
                    storeToHandler[index] = nowUs / 1000.0 - message.getStoreTimestamp();
                    if (written.incrementAndGet() == expected) {
                        done.countDown();
                    }
                }
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        };
        DefaultMQPushConsumer consumer = startConsumer(namesrv, topic, group, listener);
        try {
            while (heldQueues(consumer, topic) < queues) {
                if (System.currentTimeMillis() > deadline) {
                    throw new IllegalStateException("held " + heldQueues(consumer, topic) + " of " + queues
                        + " queues at the deadline");
                }
                Thread.sleep(HELD_POLL_MS);
            }
            System.out.println("BENCH_READY");
            System.out.flush();
            if (!done.await(Math.max(0, deadline - System.currentTimeMillis()), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("the listener saw " + measured.get() + " of " + expected
                    + " measured messages within " + timeoutMs + " ms");
            }
        } finally {
            consumer.shutdown();
        }
        StringBuilder json = new StringBuilder("BENCH_RESULT {\"measured\":").append(expected);
        appendArray(json.append(",\"sentToHandlerMs\":"), sentToHandler);
        appendArray(json.append(",\"storeToHandlerMs\":"), storeToHandler);
        System.out.println(json.append('}'));
    }

    /**
     * A started consumer. start() looks the topic's route up once with a 3 s timeout and throws when the
     * name server does not answer in time, which a loaded machine sees now and then: try again, as a
     * fresh consumer, a few times.
     */
    private static DefaultMQPushConsumer startConsumer(String namesrv, String topic, String group,
        MessageListenerConcurrently listener) throws Exception {
        for (int attempt = 1; ; attempt++) {
            DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(group);
            consumer.setNamesrvAddr(namesrv);
            consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
            // As in PushConsumerBench: a 1 s heartbeat, so that the first rebalance's subscription is not
            // refused (SUBSCRIPTION_NOT_LATEST) until the next 30 s heartbeat.
            consumer.setHeartbeatBrokerInterval(1000);
            consumer.subscribe(topic, "*");
            consumer.registerMessageListener(listener);
            try {
                consumer.start();
                return consumer;
            } catch (IllegalStateException | MQClientException e) {
                consumer.shutdown();
                if (attempt >= START_ATTEMPTS) {
                    throw e;
                }
                System.err.println("start attempt " + attempt + " failed, trying again: " + e);
                Thread.sleep(START_RETRY_DELAY_MS);
            }
        }
    }

    /** The queues of `topic` (its retry topic left out) the consumer's rebalance holds now. */
    private static int heldQueues(DefaultMQPushConsumer consumer, String topic) {
        int held = 0;
        for (MessageQueue queue : consumer.getDefaultMQPushConsumerImpl().getRebalanceImpl()
            .getProcessQueueTable().keySet()) {
            if (queue.getTopic().equals(topic)) {
                held++;
            }
        }
        return held;
    }

    /** Microseconds since the epoch: the wall clock the Node producer reads (bench/steady-producer.ts). */
    private static long epochMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
    }

    private static void appendArray(StringBuilder json, double[] values) {
        json.append('[');
        for (int i = 0; i < values.length; i++) {
            if (i > 0) {
                json.append(',');
            }
            json.append(values[i]);
        }
        json.append(']');
    }
}
