package io.leasehold.proxy.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.proxy.protocol.KafkaMessages;
import io.leasehold.testing.JavaCommand;
import io.leasehold.testing.LocalCluster;
import io.leasehold.testing.ProxyProcess;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;

/**
 * Fuzzes the proxy's frame and request decoding with seeded random mutations of valid requests
 * of every API key and version the proxy advertises, sent to a real proxy process (paranoid leak
 * detection) in front of a real broker and etcd. Every mutated connection must be answered or
 * closed within a bound; meanwhile a well-behaved client keeps producing and fetching through
 * the same proxy without a single failure; afterwards the proxy is alive, drains on SIGTERM with
 * exit code 0, and its log has no {@code LEAK:} report (a GC is forced first so leaked buffers
 * are noticed).
 *
 * <p>CI runs {@value #DEFAULT_CASES} cases. Run longer with
 * {@code mvn -pl proxy -am verify -Dtest=ProtocolFuzzTest -Dsurefire.failIfNoSpecifiedTests=false
 * -Dleasehold.fuzz.cases=100000 [-Dleasehold.fuzz.seed=N]}; a failure names the seed and case.
 */
class ProtocolFuzzTest {

    static final int DEFAULT_CASES = 1500;
    private static final Duration ANSWER_BOUND = Duration.ofSeconds(5);
    private static final Duration CLOSE_BOUND = Duration.ofSeconds(5);
    /** The backend request timeout (30 s) with room for one more attempt's backoff and answer. */
    private static final Duration SLOW_BOUND = Duration.ofSeconds(40);
    private static final String TOPIC = "fuzzed";

    @Test
    void mutatedRequestsOfEveryAdvertisedApiNeitherCrashHangNorLeakAndOthersKeepWorking() throws Exception {
        int cases = Integer.getInteger("leasehold.fuzz.cases", DEFAULT_CASES);
        long seed = Long.getLong("leasehold.fuzz.seed", System.nanoTime());
        List<String> jvm = new ArrayList<>(JavaCommand.DEFAULT_JVM_OPTIONS);
        jvm.add("-Dio.netty.leakDetection.level=paranoid");
        try (LocalCluster cluster = LocalCluster.builder("fuzz").brokers(1)
                .proxyCommand(JavaCommand.ofCurrentClasspath(jvm)).start()) {
            cluster.createTopic(TOPIC, 1);
            cluster.createTopic("steady", 1);
            ProxyProcess proxy = cluster.startProxy();
            Map<ApiKeys, short[]> advertised = advertisedVersions(proxy);
            List<SeedRequests.Seed> seeds = SeedRequests.forAdvertised(advertised, TOPIC);
            FrameMutator mutator = new FrameMutator(new Random(seed));
            Random pick = new Random(seed + 1);
            Map<FrameMutator.Kind, int[]> outcomes = new EnumMap<>(FrameMutator.Kind.class);
            try (SteadyTraffic steady = new SteadyTraffic(proxy.address(), "steady").start()) {
                List<Waiting> waiting = new ArrayList<>();
                for (int i = 0; i < cases; i++) {
                    SeedRequests.Seed original = seeds.get(pick.nextInt(seeds.size()));
                    FrameMutator.Mutation mutation = mutator.mutate(original.frame());
                    String name = String.format("case %d of seed %d: %s v%d mutated by %s", i, seed, original.api(),
                            original.version(), mutation.kind());
                    Socket slow = send(proxy, mutation, outcomes);
                    if (slow != null) {
                        waiting.add(new Waiting(name, mutation.kind(), slow));
                    }
                }
                awaitAnswerOrClose(waiting, outcomes);
                steady.stopAndWait();
                System.out.printf("fuzz seed %d: %d cases over %d seeds (%d APIs); outcomes %s; steady round trips %d%n",
                        seed, cases, seeds.size(), advertised.size(), describe(outcomes), steady.completed());
                assertThat(steady.failures()).as("the well-behaved client's failures").isEmpty();
                assertThat(steady.completed()).as("the well-behaved client's round trips").isPositive();
            }
            assertThat(advertised).containsKeys(ApiKeys.PRODUCE, ApiKeys.FETCH, ApiKeys.METADATA, ApiKeys.API_VERSIONS);
            assertThat(proxy.isAlive()).as("the proxy survived").isTrue();
            forceGcAndAllocate(proxy);
            assertThat(proxy.terminate(Duration.ofSeconds(30))).as("exit code after SIGTERM").isZero();
            assertThat(Files.readString(proxy.process().stderrLog())).as("leak reports").doesNotContain("LEAK:");
        }
    }

    /** What became of one mutated connection. */
    enum Outcome { ANSWERED, CLOSED }

    /** A complete request not answered at once, its connection still fully open. */
    private record Waiting(String name, FrameMutator.Kind kind, Socket socket) {
    }

    /**
     * Sends one mutation and records its outcome; returns the still open connection of a
     * complete request that got no answer within {@link #ANSWER_BOUND} (a fetch may be told to
     * wait long), for {@link #awaitAnswerOrClose} to follow. The connection is never half-closed
     * while a complete request is waiting: the proxy closes on end of input, which would hide a
     * request it never answers.
     */
    private static Socket send(ProxyProcess proxy, FrameMutator.Mutation mutation,
                               Map<FrameMutator.Kind, int[]> outcomes) throws IOException {
        Socket socket = new Socket();
        boolean keep = false;
        try {
            socket.connect(new InetSocketAddress("127.0.0.1", proxy.port()), 5_000);
            InputStream in = socket.getInputStream();
            socket.getOutputStream().write(mutation.bytes());
            socket.getOutputStream().flush();
            if (mutation.complete()) {
                socket.setSoTimeout((int) ANSWER_BOUND.toMillis());
                try {
                    count(outcomes, mutation.kind(), in.read() == -1 ? Outcome.CLOSED : Outcome.ANSWERED);
                } catch (SocketTimeoutException slow) {
                    keep = true;
                    return socket;
                }
                return null;
            }
            // A truncated frame: the proxy waits for the rest until the client's end of input.
            socket.shutdownOutput();
            socket.setSoTimeout((int) CLOSE_BOUND.toMillis());
            try {
                while (in.read() != -1) {
                    // An answer before the close is fine too.
                }
            } catch (SocketTimeoutException hung) {
                throw new AssertionError(mutation.kind() + ": a truncated frame's connection was not closed within "
                        + CLOSE_BOUND + " after the client's end of input");
            }
            count(outcomes, mutation.kind(), Outcome.CLOSED);
            return null;
        } catch (SocketException reset) {
            count(outcomes, mutation.kind(), Outcome.CLOSED);
            return null;
        } finally {
            if (!keep) {
                socket.close();
            }
        }
    }

    /**
     * Every request still waiting must be answered or its connection closed within
     * {@link #SLOW_BOUND} of now: the longest a proxy may hold a request (the backend request
     * timeout, then a retry) with a margin. They wait side by side, so slow cases cost that once.
     */
    private static void awaitAnswerOrClose(List<Waiting> waiting, Map<FrameMutator.Kind, int[]> outcomes)
            throws IOException {
        long deadline = System.nanoTime() + SLOW_BOUND.toNanos();
        List<String> hung = new ArrayList<>();
        for (Waiting w : waiting) {
            try (Socket socket = w.socket()) {
                long left = Math.max(1, (deadline - System.nanoTime()) / 1_000_000);
                socket.setSoTimeout((int) left);
                count(outcomes, w.kind(), socket.getInputStream().read() == -1 ? Outcome.CLOSED : Outcome.ANSWERED);
            } catch (SocketTimeoutException timedOut) {
                hung.add(w.name());
            } catch (SocketException reset) {
                count(outcomes, w.kind(), Outcome.CLOSED);
            }
        }
        assertThat(hung).as("requests neither answered nor closed within %s", SLOW_BOUND).isEmpty();
    }

    private static void count(Map<FrameMutator.Kind, int[]> outcomes, FrameMutator.Kind kind, Outcome outcome) {
        outcomes.computeIfAbsent(kind, k -> new int[Outcome.values().length])[outcome.ordinal()]++;
    }

    /** The versions the proxy advertises, asked with a real ApiVersions v3 request. */
    private static Map<ApiKeys, short[]> advertisedVersions(ProxyProcess proxy) throws IOException {
        ByteBuf request = KafkaMessages.encodeRequest(new UnpooledByteBufAllocator(false), ApiKeys.API_VERSIONS, (short) 3,
                "fuzzer", new ApiVersionsRequestData().setClientSoftwareName("fuzzer").setClientSoftwareVersion("1"));
        byte[] bytes = new byte[request.readableBytes()];
        request.readBytes(bytes);
        request.release();
        try (Socket socket = new Socket("127.0.0.1", proxy.port())) {
            socket.setSoTimeout(10_000);
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            out.writeInt(bytes.length);
            out.write(bytes);
            out.flush();
            DataInputStream in = new DataInputStream(socket.getInputStream());
            byte[] response = new byte[in.readInt()];
            in.readFully(response);
            ApiVersionsResponseData data = KafkaMessages.decodeResponse(Unpooled.wrappedBuffer(response),
                    ApiKeys.API_VERSIONS, (short) 3);
            assertThat(data.errorCode()).as("ApiVersions error").isZero();
            Map<ApiKeys, short[]> versions = new TreeMap<>();
            data.apiKeys().forEach(key -> {
                if (ApiKeys.hasId(key.apiKey())) {
                    versions.put(ApiKeys.forId(key.apiKey()), new short[] {key.minVersion(), key.maxVersion()});
                }
            });
            return versions;
        }
    }

    /** A full GC in the proxy makes leaked buffers collectable; new allocations then get them reported. */
    private static void forceGcAndAllocate(ProxyProcess proxy) throws Exception {
        Process jcmd = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                Long.toString(proxy.process().pid()), "GC.run").redirectErrorStream(true).start();
        String output = new String(jcmd.getInputStream().readAllBytes());
        assertThat(jcmd.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(jcmd.exitValue()).as("jcmd GC.run: %s", output).isZero();
        for (int i = 0; i < 20; i++) {
            advertisedVersions(proxy);
        }
    }

    private static String describe(Map<FrameMutator.Kind, int[]> outcomes) {
        StringBuilder out = new StringBuilder();
        outcomes.forEach((kind, counts) -> out.append(kind).append(" answered=").append(counts[0])
                .append(" closed=").append(counts[1]).append("; "));
        return out.toString();
    }
}
