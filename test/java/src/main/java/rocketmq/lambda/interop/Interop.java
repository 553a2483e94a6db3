/*
 * Apache RocketMQ's own Java client (rocketmq-client 5.3.3) as an interop peer for the integration
 * tests: messages produced here must decode in our consumer, and messages our code produces must
 * arrive intact here. Driven by test/support/java-interop.ts; prints one JSON object per line.
 *
 *   produce <namesrv> <specFile>
 *     specFile: {"messages": [{topic, tags?, keys?: [..], properties?: {..}, bodyBase64, queueId?}],
 *                "options": {batch?, compressOverBytes?, compressType?: "ZLIB"|"LZ4"|"ZSTD", brokerName?,
 *                            messageTrace?}}
 *     messageTrace: the producer writes its Pub trace records to RMQ_SYS_TRACE_TOPIC (enableMsgTrace).
 *     prints per message: {msgId, offsetMsgId, topic, queueId, queueOffset, status}
 *   consume <namesrv> <topic> <group> <expectedCount> <timeoutMs> [subExpression] [TAG|SQL92]
 *     prints per message: {msgId, offsetMsgId, topic, tags, keys, properties, bodyBase64, queueId,
 *                          queueOffset, reconsumeTimes, bornTimestamp, storeTimestamp}
 *     exits after expectedCount messages or timeoutMs, whichever comes first.
 */
package rocketmq.lambda.interop;

import com.alibaba.fastjson2.JSON;
import com.alibaba.fastjson2.JSONArray;
import com.alibaba.fastjson2.JSONObject;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.MessageSelector;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.common.compression.CompressionType;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageClientExt;
import org.apache.rocketmq.common.message.MessageClientIDSetter;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.common.topic.TopicValidator;

public final class Interop {
    private static final PrintStream OUT = new PrintStream(System.out, true, StandardCharsets.UTF_8);

    private Interop() {
    }

    public static void main(String[] args) {
        try {
            if (args.length >= 3 && "produce".equals(args[0])) {
                produce(args[1], args[2]);
            } else if (args.length >= 6 && "consume".equals(args[0])) {
                consume(args);
            } else {
                System.err.println("usage: produce <namesrv> <specFile> | consume <namesrv> <topic> <group> "
                    + "<expectedCount> <timeoutMs> [subExpression] [TAG|SQL92]");
                System.exit(2);
            }
            System.exit(0);
        } catch (Throwable e) {
            e.printStackTrace();
            System.exit(1);
        }
    }

    private static void produce(String namesrv, String specFile) throws Exception {
        JSONObject spec = JSON.parseObject(new String(Files.readAllBytes(Paths.get(specFile)), StandardCharsets.UTF_8));
        JSONArray items = spec.getJSONArray("messages");
        JSONObject options = spec.containsKey("options") ? spec.getJSONObject("options") : new JSONObject();
        String brokerName = options.containsKey("brokerName") ? options.getString("brokerName") : "broker-a";

        // (group, enableMsgTrace, customizedTraceTopic): null picks RMQ_SYS_TRACE_TOPIC.
        DefaultMQProducer producer = new DefaultMQProducer("interop_producer_" + ProcessHandle.current().pid(),
            options.getBooleanValue("messageTrace"), null);
        producer.setNamesrvAddr(namesrv);
        producer.setSendMsgTimeout(15_000);
        if (options.containsKey("compressOverBytes")) {
            producer.setCompressMsgBodyOverHowmuch(options.getIntValue("compressOverBytes"));
        }
        if (options.containsKey("compressType")) {
            producer.setCompressType(CompressionType.of(options.getString("compressType")));
        }
        producer.start();
        List<String> sentIds = new ArrayList<>();
        try {
            List<Message> messages = new ArrayList<>();
            List<Integer> queueIds = new ArrayList<>();
            for (int i = 0; i < items.size(); i++) {
                JSONObject item = items.getJSONObject(i);
                messages.add(toMessage(item));
                queueIds.add(item.containsKey("queueId") ? item.getInteger("queueId") : null);
            }
            if (options.getBooleanValue("batch")) {
                Integer queueId = queueIds.isEmpty() ? null : queueIds.get(0);
                SendResult result = queueId == null
                    ? producer.send(messages)
                    : producer.send(messages, new MessageQueue(messages.get(0).getTopic(), brokerName, queueId));
                String[] offsetMsgIds = result.getOffsetMsgId() == null ? new String[0] : result.getOffsetMsgId().split(",");
                for (int i = 0; i < messages.size(); i++) {
                    Message message = messages.get(i);
                    printSendResult(result, MessageClientIDSetter.getUniqID(message),
                        i < offsetMsgIds.length ? offsetMsgIds[i] : null, result.getQueueOffset() + i);
                    sentIds.add(MessageClientIDSetter.getUniqID(message));
                }
            } else {
                for (int i = 0; i < messages.size(); i++) {
                    Message message = messages.get(i);
                    Integer queueId = queueIds.get(i);
                    SendResult result = queueId == null
                        ? producer.send(message)
                        : producer.send(message, new MessageQueue(message.getTopic(), brokerName, queueId));
                    printSendResult(result, result.getMsgId(), result.getOffsetMsgId(), result.getQueueOffset());
                    sentIds.add(result.getMsgId());
                }
            }
        } finally {
            if (options.getBooleanValue("messageTrace")) {
                // The trace dispatcher sends Pub records asynchronously (after a route lookup of the trace
                // topic) and its shutdown does not wait for sends in flight: a producer that exited 2 s after
                // its sends still lost them on a loaded machine (CI, 2026-12-07, twice). Exit only once the
                // broker's index finds a trace record of every message sent, as mqadmin queryMsgTraceById
                // does.
                awaitTraceRecords(producer, sentIds);
            }
            producer.shutdown();
        }
    }

    /** Waits up to 60 s until RMQ_SYS_TRACE_TOPIC holds a record keyed by each id; says on stderr if not. */
    private static void awaitTraceRecords(DefaultMQProducer producer, List<String> ids) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 60_000;
        for (String id : ids) {
            while (true) {
                try {
                    if (!producer.queryMessage(TopicValidator.RMQ_SYS_TRACE_TOPIC, id, 8, 0, Long.MAX_VALUE)
                        .getMessageList().isEmpty()) {
                        break;
                    }
                } catch (MQClientException notYet) {
                    // "no message" until the broker has indexed the trace record
                }
                if (System.currentTimeMillis() > deadline) {
                    System.err.println("interop produce: no trace record of " + id + " within 60 s");
                    return;
                }
                Thread.sleep(200);
            }
        }
    }

    private static Message toMessage(JSONObject item) {
        Message message = new Message(item.getString("topic"), Base64.getDecoder().decode(item.getString("bodyBase64")));
        if (item.containsKey("tags")) {
            message.setTags(item.getString("tags"));
        }
        if (item.containsKey("keys")) {
            message.setKeys(item.getJSONArray("keys").toJavaList(String.class));
        }
        if (item.containsKey("properties")) {
            JSONObject properties = item.getJSONObject("properties");
            for (String key : properties.keySet()) {
                message.putUserProperty(key, properties.getString(key));
            }
        }
        return message;
    }

    private static void printSendResult(SendResult result, String msgId, String offsetMsgId, long queueOffset) {
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("msgId", msgId);
        line.put("offsetMsgId", offsetMsgId);
        line.put("topic", result.getMessageQueue().getTopic());
        line.put("brokerName", result.getMessageQueue().getBrokerName());
        line.put("queueId", result.getMessageQueue().getQueueId());
        line.put("queueOffset", queueOffset);
        line.put("status", result.getSendStatus().name());
        OUT.println(JSON.toJSONString(line));
    }

    private static void consume(String[] args) throws Exception {
        String namesrv = args[1];
        String topic = args[2];
        String group = args[3];
        int expectedCount = Integer.parseInt(args[4]);
        long timeoutMs = Long.parseLong(args[5]);
        String subExpression = args.length > 6 ? args[6] : "*";
        String expressionType = args.length > 7 ? args[7] : "TAG";

        CountDownLatch done = new CountDownLatch(1);
        AtomicInteger received = new AtomicInteger();
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(group);
        consumer.setNamesrvAddr(namesrv);
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        // The first rebalance bumps the subscription version and heartbeats it, but that heartbeat is
        // skipped when the start-up heartbeat holds the lock: pulls then fail with SUBSCRIPTION_NOT_LATEST
        // until the next periodic heartbeat (30 s by default). Heartbeat every second instead, and
        // look up routes every second so topics created after start are found quickly.
        consumer.setHeartbeatBrokerInterval(1000);
        consumer.setPollNameServerInterval(1000);
        consumer.setPersistConsumerOffsetInterval(1000);
        if ("SQL92".equals(expressionType)) {
            consumer.subscribe(topic, MessageSelector.bySql(subExpression));
        } else {
            consumer.subscribe(topic, subExpression);
        }
        consumer.registerMessageListener((MessageListenerConcurrently) (messages, context) -> {
            for (MessageExt message : messages) {
                synchronized (OUT) {
                    OUT.println(JSON.toJSONString(toLine(message)));
                }
                if (received.incrementAndGet() >= expectedCount) {
                    done.countDown();
                }
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        consumer.start();
        boolean complete = expectedCount <= 0 || done.await(timeoutMs, TimeUnit.MILLISECONDS);
        if (!complete) {
            System.err.printf("timed out after %d ms with %d of %d messages%n", timeoutMs, received.get(), expectedCount);
        }
        consumer.shutdown();
    }

    private static Map<String, Object> toLine(MessageExt message) {
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("msgId", message.getMsgId());
        line.put("offsetMsgId", message instanceof MessageClientExt
            ? ((MessageClientExt) message).getOffsetMsgId()
            : message.getMsgId());
        line.put("topic", message.getTopic());
        line.put("tags", message.getTags());
        String keys = message.getKeys();
        line.put("keys", keys == null || keys.isEmpty() ? new String[0] : keys.split(" "));
        line.put("properties", new LinkedHashMap<>(message.getProperties()));
        line.put("bodyBase64", Base64.getEncoder().encodeToString(message.getBody() == null ? new byte[0] : message.getBody()));
        line.put("brokerName", message.getBrokerName());
        line.put("queueId", message.getQueueId());
        line.put("queueOffset", message.getQueueOffset());
        line.put("reconsumeTimes", message.getReconsumeTimes());
        line.put("bornTimestamp", message.getBornTimestamp());
        line.put("storeTimestamp", message.getStoreTimestamp());
        return line;
    }
}
