/*
 * The Java side of `npm run bench`: Apache RocketMQ's own DefaultMQPushConsumer (rocketmq-client 5.3.3)
 * doing the same work as our consumer in bench/consumer-child.ts (count the messages, answer
 * CONSUME_SUCCESS), and the client's PULL body decoder for the decode micro-benchmark. Driven by
 * bench/java-bench.ts; prints one line `BENCH_RESULT {json}` on success.
 *
 *   consume <namesrv> <topic> <group> <expectedCount> <timeoutMs>
 *     prints `BENCH_STARTED` right before start() (the harness reads the broker's CPU then), then
 *     {startToFirstMs, startToLastMs, firstToLastMs, received, cpuMsStartToLast, cpuMsProcessToLast,
 *      peakRssBytes, peakHeapUsedBytes, maxHeapBytes, gcPauseMs, gcMinorCount, gcMajorCount,
 *      rssSeries: [[ms since start(), VmRSS bytes], ...] every 200 ms from start() to the last message}
 *     before its shutdown
 *   decode <bodyFile> <warmupMs> <measureMs>
 *     {iterations, messages, bytes, elapsedNs, cpuNs}
 */
package rocketmq.lambda.bench;

import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.MessageDecoder;
import org.apache.rocketmq.common.message.MessageExt;

public final class PushConsumerBench {
    private static final long SAMPLE_INTERVAL_MS = 50;
    /** As bench/peers/drain-measurement.ts samples the Node children. */
    private static final long RSS_SERIES_INTERVAL_MS = 200;

    private PushConsumerBench() {
    }

    public static void main(String[] args) {
        try {
            if (args.length == 6 && "consume".equals(args[0])) {
                consume(args[1], args[2], args[3], Integer.parseInt(args[4]), Long.parseLong(args[5]));
            } else if (args.length == 4 && "decode".equals(args[0])) {
                decode(args[1], Long.parseLong(args[2]), Long.parseLong(args[3]));
            } else {
                System.err.println("usage: consume <namesrv> <topic> <group> <expectedCount> <timeoutMs>"
                    + " | decode <bodyFile> <warmupMs> <measureMs>");
                System.exit(2);
            }
            System.exit(0);
        } catch (Throwable e) {
            e.printStackTrace();
            System.exit(1);
        }
    }

    private static void consume(String namesrv, String topic, String group, int expectedCount, long timeoutMs)
        throws Exception {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        AtomicLong peakHeapUsed = new AtomicLong();
        ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "bench-memory-sampler");
            thread.setDaemon(true);
            return thread;
        });
        sampler.scheduleAtFixedRate(
            () -> peakHeapUsed.accumulateAndGet(memory.getHeapMemoryUsage().getUsed(), Math::max),
            0, SAMPLE_INTERVAL_MS, TimeUnit.MILLISECONDS);

        CountDownLatch done = new CountDownLatch(1);
        AtomicInteger received = new AtomicInteger();
        AtomicLong firstAtNs = new AtomicLong();
        AtomicLong lastAtNs = new AtomicLong();
        AtomicLong cpuAtLastNs = new AtomicLong();
        AtomicReference<long[]> gcAtLast = new AtomicReference<>();
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(group);
        consumer.setNamesrvAddr(namesrv);
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        // The start-up heartbeat can race the first rebalance's subscription-version heartbeat; the pulls
        // then get SUBSCRIPTION_NOT_LATEST until the next periodic heartbeat (30 s by default), which would
        // measure a race, not the consumer. A 1 s heartbeat costs nothing measurable.
        consumer.setHeartbeatBrokerInterval(1000);
        consumer.subscribe(topic, "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (messages, context) -> {
            long now = System.nanoTime();
            firstAtNs.compareAndSet(0, now);
            if (received.addAndGet(messages.size()) >= expectedCount && lastAtNs.compareAndSet(0, now)) {
                cpuAtLastNs.set(processCpuNs());
                gcAtLast.set(gcSnapshot());
                done.countDown();
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });

        System.out.println("BENCH_STARTED");
        System.out.flush();
        long cpuAtStartNs = processCpuNs();
        long[] gcAtStart = gcSnapshot();
        long startNs = System.nanoTime();
        List<long[]> rssSeries = new ArrayList<>();
        sampler.scheduleAtFixedRate(() -> {
            long rss = statusKiB("VmRSS:") * 1024;
            synchronized (rssSeries) {
                rssSeries.add(new long[] {TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs), rss});
            }
        }, 0, RSS_SERIES_INTERVAL_MS, TimeUnit.MILLISECONDS);
        consumer.start();
        boolean complete = done.await(timeoutMs, TimeUnit.MILLISECONDS);
        peakHeapUsed.accumulateAndGet(memory.getHeapMemoryUsage().getUsed(), Math::max);
        long peakRss = statusKiB("VmHWM:") * 1024;
        sampler.shutdownNow();
        StringBuilder series = new StringBuilder("[");
        synchronized (rssSeries) {
            for (long[] point : rssSeries) {
                if (series.length() > 1) {
                    series.append(',');
                }
                series.append('[').append(point[0]).append(',').append(point[1]).append(']');
            }
        }
        series.append(']');
        if (!complete) {
            consumer.shutdown();
            throw new IllegalStateException("received " + received.get() + " of " + expectedCount
                + " messages within " + timeoutMs + " ms");
        }
        int count = received.get();
        long first = firstAtNs.get();
        long last = lastAtNs.get();
        // The whole process, as is: the consume threads and the client's, and the JIT compiler's and
        // the collector's threads, which are the JVM's real cost of the work (as V8's are Node's).
        long cpuAtLast = cpuAtLastNs.get();
        // Printed before the shutdown, so that the harness's broker CPU window ends at the last message.
        System.out.println("BENCH_RESULT {"
            + "\"received\":" + count
            + ",\"startToFirstMs\":" + millis(first - startNs)
            + ",\"startToLastMs\":" + millis(last - startNs)
            + ",\"firstToLastMs\":" + millis(last - first)
            + ",\"cpuMsStartToLast\":" + millis(cpuAtLast - cpuAtStartNs)
            + ",\"cpuMsProcessToLast\":" + millis(cpuAtLast)
            + ",\"peakRssBytes\":" + peakRss
            + ",\"peakHeapUsedBytes\":" + peakHeapUsed.get()
            + ",\"maxHeapBytes\":" + memory.getHeapMemoryUsage().getMax()
            + ",\"gcPauseMs\":" + (gcAtLast.get()[0] - gcAtStart[0])
            + ",\"gcMinorCount\":" + (gcAtLast.get()[1] - gcAtStart[1])
            + ",\"gcMajorCount\":" + (gcAtLast.get()[2] - gcAtStart[2])
            + ",\"rssSeries\":" + series
            + "}");
        System.out.flush();
        consumer.shutdown();
    }

    /**
     * The collectors' accumulated collection time (ms) and collections, young and old, so far: G1's
     * "Young Generation" collector (young and mixed pauses) and "Old Generation" (full collections). A
     * collector named "Concurrent" (G1's concurrent cycles, JDK 20+) is left out: that work runs beside
     * the application, as V8's concurrent marking does, and is no pause.
     */
    private static long[] gcSnapshot() {
        long ms = 0;
        long young = 0;
        long old = 0;
        for (GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
            String name = collector.getName();
            if (name.contains("Concurrent")) {
                continue;
            }
            long count = Math.max(0, collector.getCollectionCount());
            ms += Math.max(0, collector.getCollectionTime());
            if (name.contains("Old") || name.contains("MarkSweep")) {
                old += count;
            } else {
                young += count;
            }
        }
        return new long[] {ms, young, old};
    }

    /**
     * Decodes the PULL body in `bodyFile` the way the client's PullAPIWrapper does, in a loop, reading
     * each message's msgId and body as a consumer does (bench/decode-bench.ts reads the same).
     */
    private static void decode(String bodyFile, long warmupMs, long measureMs) throws IOException {
        byte[] body = Files.readAllBytes(Paths.get(bodyFile));
        long sink = 0;
        long warmupEnd = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(warmupMs);
        while (System.nanoTime() < warmupEnd) {
            sink += decodeOnce(body);
        }
        long iterations = 0;
        long messages = 0;
        long startCpuNs = processCpuNs();
        long startNs = System.nanoTime();
        long endNs = startNs + TimeUnit.MILLISECONDS.toNanos(measureMs);
        long now;
        do {
            messages += decodeOnce(body);
            iterations++;
            now = System.nanoTime();
        } while (now < endNs);
        long cpuNs = processCpuNs() - startCpuNs;
        sink += messages;
        System.out.println("BENCH_RESULT {"
            + "\"iterations\":" + iterations
            + ",\"messages\":" + messages
            + ",\"bytes\":" + (iterations * body.length)
            + ",\"elapsedNs\":" + (now - startNs)
            + ",\"cpuNs\":" + cpuNs
            + ",\"sink\":" + sink
            + "}");
    }

    private static int decodeOnce(byte[] body) {
        List<MessageExt> decoded = MessageDecoder.decodesBatch(ByteBuffer.wrap(body), true, true, true);
        int touched = 0;
        for (MessageExt message : decoded) {
            touched += message.getBody().length > 0 && !message.getMsgId().isEmpty() ? 1 : 0;
        }
        return touched;
    }

    /**
     * CPU time of the whole process (all threads: the decoding or consuming threads, the collector, the
     * JIT) in ns since the JVM started, as bench/decode-bench.ts and bench/peers/drain-measurement.ts
     * measure ours: on a machine shared with other work (and a hypervisor that steals CPU), wall time
     * measures the neighbours too.
     */
    private static long processCpuNs() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
            .getProcessCpuTime();
    }

    private static double millis(long nanos) {
        return Math.round(nanos / 1e4) / 100.0;
    }

    /** A `kB` line of /proc/self/status (VmHWM, VmRSS) of this process in KiB; -1 where /proc is missing. */
    private static long statusKiB(String field) {
        try {
            for (String line : Files.readAllLines(Paths.get("/proc/self/status"), StandardCharsets.UTF_8)) {
                if (line.startsWith(field)) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException | NumberFormatException e) {
            System.err.println("cannot read " + field + " " + e);
        }
        return -1;
    }
}
