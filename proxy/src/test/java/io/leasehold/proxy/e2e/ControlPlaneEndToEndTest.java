package io.leasehold.proxy.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import io.leasehold.proxy.testing.PrometheusScrape;
import io.leasehold.testing.JavaCommand;
import io.leasehold.testing.LocalCluster;
import io.leasehold.testing.ProxyProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConsumerGroupListing;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The proxy's control plane with real processes: a real etcd, three reference brokers and two
 * proxies, driven by real kafka-clients consumers, producers and admin clients. One proxy keeps
 * the default backend timeouts; the other cuts forwarded requests at 2 s, shorter than the
 * rebalance the consumer-group test provokes. Broker leases last 30 s, so a paused broker stays
 * registered (and chosen) for the whole pause, as a broker in a long GC would.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ControlPlaneEndToEndTest {
    private static final Duration SHORT_REQUEST_TIMEOUT = Duration.ofSeconds(2);

    private LocalCluster cluster;
    private ProxyProcess proxy;
    private ProxyProcess impatientProxy;
    private final java.util.concurrent.atomic.AtomicLong slowestMetadataMs = new java.util.concurrent.atomic.AtomicLong();

    @BeforeAll
    void startCluster() {
        List<String> jvm = new ArrayList<>(JavaCommand.DEFAULT_JVM_OPTIONS);
        jvm.add("-Dio.netty.leakDetection.level=paranoid");
        cluster = LocalCluster.builder("control-plane").brokers(3).leaseTtl(Duration.ofSeconds(30))
                .proxyCommand(JavaCommand.ofCurrentClasspath(jvm)).start();
        proxy = cluster.startProxy();
        impatientProxy = cluster.startProxy(Map.of("LEASEHOLD_BACKENDS_REQUEST_TIMEOUT",
                SHORT_REQUEST_TIMEOUT.toMillis() + "ms"));
    }

    @AfterAll
    void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static Admin admin(String bootstrap, Duration timeout) {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) timeout.toMillis(),
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeout.toMillis()));
    }

    private void createTopics(List<String> topics, int partitions) throws Exception {
        try (Admin admin = admin(proxy.address(), Duration.ofSeconds(30))) {
            admin.createTopics(topics.stream().map(t -> new NewTopic(t, partitions, (short) 1)).toList())
                    .all().get(30, TimeUnit.SECONDS);
        }
    }

    private static Map<String, Object> consumerConfig(String bootstrap, String group) {
        Map<String, Object> c = new HashMap<>();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        c.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        return c;
    }

    @Test
    @Order(1)
    void rebalanceLongerThanTheBackendRequestTimeoutCompletesWithoutFailedJoins() throws Exception {
        String topic = "slow-rebalance";
        createTopics(List.of(topic), 6);
        Duration slowPoll = SHORT_REQUEST_TIMEOUT.multipliedBy(4);
        try (GroupMember fast = new GroupMember(impatientProxy.address(), "slow-rebalancers", topic, Duration.ZERO);
             GroupMember slow = new GroupMember(impatientProxy.address(), "slow-rebalancers", topic, slowPoll)) {
            await("two members share the topic").atMost(Duration.ofSeconds(60))
                    .until(() -> fast.assigned().size() + slow.assigned().size() == 6
                            && !fast.assigned().isEmpty() && !slow.assigned().isEmpty());
            // A new member's first JoinGroup is answered MEMBER_ID_REQUIRED, which the client
            // counts as a failed rebalance: that is the baseline of a member that joined a quick one.
            double freshJoinFailures = slow.failedRebalances();
            double fastBefore = fast.failedRebalances();
            slow.startDawdling();
            long polls = slow.polls();
            await("the slow member polled once more").atMost(Duration.ofSeconds(30)).until(() -> slow.polls() > polls);
            long joinStart = System.nanoTime();
            try (GroupMember late = new GroupMember(impatientProxy.address(), "slow-rebalancers", topic, Duration.ZERO)) {
                // The late joiner's JoinGroup and the fast member's rejoin wait at the broker
                // until the slow member polls again: about 8 s, four times the proxy's 2 s.
                await("three members share the topic").atMost(Duration.ofSeconds(90))
                        .until(() -> !late.assigned().isEmpty() && !fast.assigned().isEmpty()
                                && !slow.assigned().isEmpty()
                                && late.assigned().size() + fast.assigned().size() + slow.assigned().size() == 6);

                assertThat(fast.failedRebalances() - fastBefore)
                        .as("failed rebalances of the member that rejoined at once").isZero();
                assertThat(late.failedRebalances()).as("failed rebalances of the member that joined late")
                        .isEqualTo(freshJoinFailures);
                assertThat(Duration.ofNanos(System.nanoTime() - joinStart)).as("the rebalance waited for the slow member")
                        .isGreaterThan(SHORT_REQUEST_TIMEOUT);
            }
        }
    }

    @Test
    @Order(2)
    void listGroupsThroughTheProxyShowsTheGroupsOfEveryBroker() throws Exception {
        String topic = "listed";
        createTopics(List.of(topic), 2);
        List<String> groups = IntStream.range(0, 6).mapToObj(i -> "listed-group-" + i).toList();
        List<GroupMember> members = new ArrayList<>();
        try {
            for (String group : groups) {
                members.add(new GroupMember(proxy.address(), group, topic, Duration.ZERO));
            }
            await("every group has its member").atMost(Duration.ofSeconds(60))
                    .until(() -> members.stream().noneMatch(m -> m.assigned().isEmpty()));
            Set<Integer> coordinators = groups.stream().map(g -> cluster.groupOwner(g).orElse(-1))
                    .collect(Collectors.toSet());
            assertThat(coordinators).as("brokers coordinating the groups").hasSizeGreaterThan(1);

            try (Admin admin = admin(proxy.address(), Duration.ofSeconds(30))) {
                for (int call = 0; call < 3; call++) {
                    Set<String> listed = admin.listConsumerGroups().all().get(30, TimeUnit.SECONDS).stream()
                            .map(ConsumerGroupListing::groupId).collect(Collectors.toSet());
                    assertThat(listed).as("groups listed by call " + call).containsAll(groups);
                }
            }
        } finally {
            members.forEach(GroupMember::close);
        }
    }

    @Test
    @Order(3)
    void brokerConfigsOfTheProxysNodeAreRefusedWhileTopicConfigsAreServed() throws Exception {
        String topic = "configured";
        createTopics(List.of(topic), 1);
        try (Admin admin = admin(proxy.address(), Duration.ofSeconds(30))) {
            ConfigResource proxyNode = new ConfigResource(ConfigResource.Type.BROKER, "0");
            Throwable refused = catchThrowable(() -> admin.describeConfigs(List.of(proxyNode)).all()
                    .get(30, TimeUnit.SECONDS));
            Map<ConfigResource, Config> topicConfigs = admin.describeConfigs(
                    List.of(new ConfigResource(ConfigResource.Type.TOPIC, topic))).all().get(30, TimeUnit.SECONDS);
            Map<ConfigResource, Config> defaults = admin.describeConfigs(
                    List.of(new ConfigResource(ConfigResource.Type.BROKER, ""))).all().get(30, TimeUnit.SECONDS);

            assertThat(refused).hasCauseInstanceOf(InvalidRequestException.class)
                    .hasMessageContaining("not available through the Leasehold proxy");
            assertThat(topicConfigs).containsKey(new ConfigResource(ConfigResource.Type.TOPIC, topic));
            assertThat(defaults).hasSize(1);
        }
    }

    @Test
    @Order(4)
    void transactionalProducerIsRefusedAtOnceWithoutReachingABroker() throws Exception {
        Map<String, Object> p = new HashMap<>();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, proxy.address());
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "payments-tx");
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 20_000);
        Throwable refusal;
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            refusal = catchThrowable(producer::initTransactions);
        }

        assertThat(refusal).isInstanceOf(TransactionalIdAuthorizationException.class);
        PrometheusScrape metrics = new PrometheusScrape(proxy.adminUrl());
        assertThat(metrics.value("leasehold_requests_seconds_count", "api=\"FindCoordinator\""))
                .as("FindCoordinator requests answered").isPositive();
        assertThat(metrics.value("leasehold_requests_seconds_count", "api=\"InitProducerId\""))
                .as("InitProducerId requests seen (none: the refusal came with the coordinator lookup)").isEqualTo(-1);
    }

    @Test
    @Order(5)
    void clientsFetchMetadataPromptlyWhileABrokerIsPaused() throws Exception {
        List<String> topics = IntStream.range(0, 6).mapToObj(i -> "paused-metadata-" + i).toList();
        createTopics(topics, 3);
        cluster.broker(2).pause();
        ExecutorService clients = Executors.newFixedThreadPool(4);
        try {
            // Each admin and producer gives up after 12 s, well below the proxy's 30 s request
            // timeout: a Metadata fetch stuck on the paused broker fails the client.
            List<Future<?>> work = new ArrayList<>();
            for (String topic : topics) {
                work.add(clients.submit(() -> describe(topic)));
                work.add(clients.submit(() -> partitionsSeenByANewProducer(topic)));
            }
            for (Future<?> w : work) {
                w.get(60, TimeUnit.SECONDS);
            }
            System.out.printf("metadata while broker 2 was paused: %d clients, slowest answer %d ms%n", work.size(),
                    slowestMetadataMs.get());
        } finally {
            clients.shutdownNow();
            cluster.broker(2).resume();
        }
    }

    private Void describe(String topic) throws Exception {
        try (Admin admin = admin(proxy.address(), Duration.ofSeconds(12))) {
            long start = System.nanoTime();
            assertThat(admin.describeTopics(List.of(topic)).allTopicNames().get(20, TimeUnit.SECONDS).get(topic)
                    .partitions()).hasSize(3);
            slowestMetadataMs.accumulateAndGet(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), Math::max);
        }
        return null;
    }

    private Void partitionsSeenByANewProducer(String topic) {
        Map<String, Object> p = new HashMap<>();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, proxy.address());
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 12_000);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 12_000);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            long start = System.nanoTime();
            assertThat(producer.partitionsFor(topic)).hasSize(3);
            slowestMetadataMs.accumulateAndGet(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), Math::max);
        }
        return null;
    }

    /**
     * One consumer-group member polling on its own thread. A dawdling member sleeps {@code pause}
     * after every poll, like an application that processes each batch slowly; it rejoins a
     * rebalance only when it polls again.
     */
    private static final class GroupMember implements AutoCloseable {
        private static final java.util.concurrent.atomic.AtomicInteger MEMBERS = new java.util.concurrent.atomic.AtomicInteger();
        private final Thread thread;
        private volatile boolean running = true;
        private volatile boolean dawdling;
        private volatile Set<Integer> assigned = Set.of();
        private volatile double failedRebalances;
        private final java.util.concurrent.atomic.AtomicLong polls = new java.util.concurrent.atomic.AtomicLong();

        GroupMember(String bootstrap, String group, String topic, Duration pause) {
            Map<String, Object> config = consumerConfig(bootstrap, group);
            config.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, 60_000);
            this.thread = new Thread(() -> run(config, topic, pause), "member-" + group + "-" + MEMBERS.incrementAndGet());
            thread.start();
        }

        private void run(Map<String, Object> config, String topic, Duration pause) {
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
                consumer.subscribe(List.of(topic));
                while (running) {
                    consumer.poll(Duration.ofMillis(200));
                    polls.incrementAndGet();
                    Set<Integer> now = new HashSet<>();
                    consumer.assignment().forEach(tp -> now.add(tp.partition()));
                    assigned = Set.copyOf(now);
                    consumer.metrics().forEach((name, metric) -> {
                        if (name.name().equals("failed-rebalance-total")
                                && name.group().equals("consumer-coordinator-metrics")) {
                            failedRebalances = ((Number) metric.metricValue()).doubleValue();
                        }
                    });
                    if (dawdling) {
                        sleep(pause);
                    }
                }
            }
        }

        private void sleep(Duration pause) {
            try {
                Thread.sleep(pause.toMillis());
            } catch (InterruptedException e) {
                running = false;
            }
        }

        void startDawdling() {
            dawdling = true;
        }

        Set<Integer> assigned() {
            return assigned;
        }

        double failedRebalances() {
            return failedRebalances;
        }

        long polls() {
            return polls.get();
        }

        @Override
        public void close() {
            running = false;
            try {
                thread.join(TimeUnit.SECONDS.toMillis(30));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
