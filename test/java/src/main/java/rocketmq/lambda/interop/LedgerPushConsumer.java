/*
 * Apache RocketMQ's own push consumer (rocketmq-client 5.3.3 DefaultMQPushConsumer, CLUSTERING,
 * concurrently) as the reference peer of the fault suite (test/integration/faults): it appends one
 * line per consumed message to a ledger file and runs until it is killed, so that a scenario can
 * SIGKILL it and start it again exactly as it does with our poller, and compare the two ledgers.
 *
 *   <namesrv> <topic> <group> <ledgerFile>
 *     ledger line per consumed message: "<msgId> <queueId> <queueOffset>\n" (the format of
 *     test/fixtures/config/handlers/ledger.mjs), written with one unbuffered write before the
 *     message is acknowledged, so that a SIGKILL never loses a line of a message it consumed.
 *     prints {"started":true} on stdout once the consumer has started.
 *     SIGTERM shuts the consumer down (offsets persisted, queues released); SIGKILL does not.
 *
 * Offsets are kept the Java client's default way (persisted to the broker every 5 s, and with every
 * pull request), so that the duplicates after a kill are what an application with default settings
 * sees.
 */
package rocketmq.lambda.interop;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.MessageExt;

public final class LedgerPushConsumer {
    private static final PrintStream OUT = new PrintStream(System.out, true, StandardCharsets.UTF_8);

    private LedgerPushConsumer() {
    }

    public static void main(String[] args) {
        if (args.length != 4) {
            System.err.println("usage: <namesrv> <topic> <group> <ledgerFile>");
            System.exit(2);
        }
        try {
            run(args[0], args[1], args[2], args[3]);
        } catch (Throwable e) {
            e.printStackTrace();
            System.exit(1);
        }
    }

    private static void run(String namesrv, String topic, String group, String ledgerFile) throws Exception {
        // Files.newOutputStream is unbuffered: every write below reaches the file before the listener
        // returns CONSUME_SUCCESS, which is what "handled" means in the ledger.
        OutputStream ledger = Files.newOutputStream(Paths.get(ledgerFile),
            StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.WRITE);

        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(group);
        consumer.setNamesrvAddr(namesrv);
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        // As in Interop.consume: the start-up heartbeat can miss the first rebalance's subscription
        // version (pulls then fail with SUBSCRIPTION_NOT_LATEST until the next heartbeat, 30 s by
        // default), and a topic created just before start is found at the next name server poll.
        // Offsets keep the default persist interval (5 s), as our poller does.
        consumer.setHeartbeatBrokerInterval(1000);
        consumer.setPollNameServerInterval(1000);
        consumer.subscribe(topic, "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (messages, context) -> {
            StringBuilder lines = new StringBuilder();
            for (MessageExt message : messages) {
                lines.append(message.getMsgId()).append(' ')
                    .append(message.getQueueId()).append(' ')
                    .append(message.getQueueOffset()).append('\n');
            }
            byte[] bytes = lines.toString().getBytes(StandardCharsets.UTF_8);
            try {
                synchronized (ledger) {
                    ledger.write(bytes);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            consumer.shutdown();
            try {
                ledger.close();
            } catch (IOException e) {
                e.printStackTrace();
            }
        }, "ledger-consumer-shutdown"));
        consumer.start();
        OUT.println("{\"started\":true}");
        // The consumer's threads keep the JVM alive until the process is signalled.
        Thread.currentThread().join();
    }
}
