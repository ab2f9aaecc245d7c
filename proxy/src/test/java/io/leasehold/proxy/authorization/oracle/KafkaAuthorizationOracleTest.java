package io.leasehold.proxy.authorization.oracle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.leasehold.proxy.testing.ConfiguredProxy;
import io.leasehold.proxy.testing.SaslKafkaBroker;
import io.leasehold.proxy.testing.StringClients;
import io.leasehold.routing.keys.BrokerRegistration;
import io.leasehold.routing.keys.KeySchema;
import io.leasehold.routing.snapshot.BrokerAddress;
import io.leasehold.testing.LocalCluster;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Apache Kafka's own {@code StandardAuthorizer} as the oracle for the proxy's authorization. One
 * Kafka 4.4 KRaft node with SASL PLAIN users and the authorizer, and a proxy in front of it
 * (logging in as a Kafka super user) with the same users; both get the same seeded random ACL
 * set, Kafka through {@code Admin.createAcls}, the proxy through its ACL file. Each request of the
 * {@link RequestCorpus}, for every API key the proxy advertises, goes as each user once straight
 * to Kafka and once through the proxy; the two answers must agree once {@link AnswerNormaliser}
 * has taken out what must differ, and so must what a mutating request changed. The places where
 * the proxy differs on purpose ({@link DeliberateDifference}) are checked on the proxy's side and
 * listed in {@code docs/protocol-support.md}.
 *
 * <p>A run takes {@code leasehold.oracle.sets} ACL sets (default {@value #DEFAULT_SETS}) from the
 * seed {@code leasehold.oracle.seed} (default {@value #DEFAULT_SEED}); each user sends each API
 * once per set, in one of its {@link OracleVersions} chosen by the seed. A failure names the
 * seed, and for each kind of difference one request, user, ACL set and both answers.
 */
class KafkaAuthorizationOracleTest {
    private static final long DEFAULT_SEED = 20_261_204L;
    private static final int DEFAULT_SETS = 3;
    private static final String SERVICE_USER = "leasehold-svc";
    private static final String SERVICE_PASSWORD = "svc-" + UUID.randomUUID();
    /** The users both sides know; carol is named by no rule, so only {@code User:*} rules reach her. */
    private static final Map<String, String> USERS = Map.of("alice", "alice-" + UUID.randomUUID(),
            "bob", "bob-" + UUID.randomUUID(), "carol", "carol-" + UUID.randomUUID());
    private static final Duration NO_ANSWER = Duration.ofSeconds(8);
    private static final Path PROTOCOL_SUPPORT = Path.of("..", "docs", "protocol-support.md");

    @TempDir
    static Path dir;
    private static LocalCluster cluster;
    private static SaslKafkaBroker kafka;
    private static ConfiguredProxy proxy;
    private static Admin admin;
    private static Path aclsFile;
    private static Map<String, Uuid> topicIds;

    @BeforeAll
    static void start() throws Exception {
        cluster = LocalCluster.builder("oracle").brokers(0).start();
        kafka = SaslKafkaBroker.start(SERVICE_USER, SERVICE_PASSWORD, Duration.ofHours(1), cluster.logDir(),
                new SaslKafkaBroker.Options(USERS, true, List.of("User:" + SERVICE_USER)));
        try (Client etcd = Client.builder().endpoints(cluster.etcdEndpoint()).build()) {
            etcd.getKVClient().put(bytes(new KeySchema(cluster.prefix()).brokerKey(SaslKafkaBroker.ID)),
                    bytes(BrokerRegistration.toJson(new BrokerAddress(SaslKafkaBroker.ID, "127.0.0.1",
                            kafka.saslPort(), null)))).get(10, TimeUnit.SECONDS);
        }
        admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.internalAddress()));
        Map<String, Object> internal = Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, kafka.internalAddress());
        for (String topic : ClusterState.TOPICS) {
            StringClients.createTopic(internal, topic, topic.equals("orders") ? 2 : 1);
            StringClients.produce(internal, topic, "seed-", 3);
        }
        topicIds = admin.describeTopics(ClusterState.TOPICS).allTopicNames().get(30, TimeUnit.SECONDS).entrySet()
                .stream().collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().topicId()));
        new ClusterState(admin).restore();

        StringBuilder users = new StringBuilder("users:\n");
        USERS.forEach((user, password) -> users.append("  - name: ").append(user).append("\n    password: \"")
                .append(password).append("\"\n"));
        Path usersFile = Files.writeString(dir.resolve("users.yaml"), users);
        Path passwordFile = Files.writeString(dir.resolve("svc.password"), SERVICE_PASSWORD + "\n");
        aclsFile = Files.writeString(dir.resolve("acls.yaml"), "acls: []\n");
        proxy = ConfiguredProxy.builder(cluster, dir, "oracle-proxy")
                .listener("sasl: { mechanisms: [PLAIN], usersFile: " + usersFile + " }")
                .backends("{ bootstrap: [\"" + kafka.saslAddress() + "\"], sasl: { mechanism: PLAIN, username: "
                        + SERVICE_USER + ", passwordFile: " + passwordFile + " } }")
                .section("authorization: { aclsFile: " + aclsFile + " }")
                .start();
    }

    @AfterAll
    static void stop() throws IOException {
        if (admin != null) {
            admin.close();
        }
        if (kafka != null) {
            kafka.close();
        }
        ConfiguredProxy.stopAll(cluster, proxy);
    }

    @Test
    void everyApiKeyTheProxyAdvertisesHasRequestsInTheCorpus() throws Exception {
        RequestCorpus corpus = new RequestCorpus(topicIds);
        List<ApiKeys> uncovered = advertised(proxy.port()).keySet().stream().filter(api -> !corpus.covers(api)).toList();
        assertThat(uncovered).as("advertised API keys the oracle cannot send: add them to RequestCorpus").isEmpty();
    }

    @Test
    void everyDeliberateDifferenceIsDocumentedOnceAndTheDocumentListsNoOther() throws IOException {
        String doc = Files.readString(PROTOCOL_SUPPORT);
        int section = doc.indexOf("## Where Leasehold answers differently from Apache Kafka");
        assertThat(section).as("the section in %s", PROTOCOL_SUPPORT).isNotNegative();
        int end = doc.indexOf("\n## ", section + 1);
        String text = end < 0 ? doc.substring(section) : doc.substring(section, end);
        Matcher ids = Pattern.compile("(?m)^\\| (D\\d+) \\|").matcher(text);
        List<String> documented = new ArrayList<>();
        while (ids.find()) {
            documented.add(ids.group(1));
        }
        assertThat(documented).as("ids listed in the section").doesNotHaveDuplicates()
                .containsExactlyInAnyOrderElementsOf(Arrays.stream(DeliberateDifference.values())
                        .map(DeliberateDifference::id).toList());
    }

    @Test
    void everyAnswerAgreesWithKafkasOwnAuthorizerForRandomAclSets() throws Exception {
        long seed = Long.getLong("leasehold.oracle.seed", DEFAULT_SEED);
        int sets = Integer.getInteger("leasehold.oracle.sets", DEFAULT_SETS);
        Random random = new Random(seed);
        AclSets aclSets = new AclSets(seed);
        RequestCorpus corpus = new RequestCorpus(topicIds);
        ClusterState state = new ClusterState(admin);
        Map<ApiKeys, short[]> kafkaRanges = advertised(kafka.saslPort());
        Map<ApiKeys, TreeSet<Short>> versions = new TreeMap<>();
        advertised(proxy.port()).forEach((api, range) -> versions.put(api, OracleVersions.of(api, range[0], range[1])));
        Map<String, List<String>> differences = new LinkedHashMap<>();
        int sent = 0;
        try (Connections direct = new Connections("127.0.0.1", kafka.saslPort());
             Connections proxied = new Connections("127.0.0.1", proxy.port())) {
            for (int set = 0; set < sets; set++) {
                List<OracleAcl> acls = aclSets.next();
                apply(set, acls);
                for (String user : new TreeSet<>(USERS.keySet())) {
                    for (Map.Entry<ApiKeys, TreeSet<Short>> api : versions.entrySet()) {
                        short version = OracleVersions.pick(api.getValue(), random);
                        for (ApiMessage request : corpus.requests(api.getKey(), version)) {
                            Pair pair = new Pair(seed, set, acls, user, api.getKey(), version, request,
                                    kafkaRanges.get(api.getKey()));
                            sent += 2;
                            pair.compare(direct, proxied, state)
                                    .ifPresent(found -> differences.computeIfAbsent(found.kind(),
                                            k -> new ArrayList<>()).add(found.detail()));
                        }
                    }
                }
            }
        }
        System.out.printf("oracle: seed %d, %d ACL sets, %d requests, %d kinds of difference%n", seed, sets, sent,
                differences.size());
        assertThat(differences).as(() -> report(seed, differences)).isEmpty();
    }

    /** One request in one version as one user, sent to both sides. */
    private record Pair(long seed, int set, List<OracleAcl> acls, String user, ApiKeys api, short version,
                        ApiMessage request, short[] kafkaRange) {

        Optional<Found> compare(Connections direct, Connections proxied, ClusterState state) throws Exception {
            Optional<DeliberateDifference> deliberate = DeliberateDifference.of(api);
            if (deliberate.isPresent() && deliberate.get() == DeliberateDifference.ACL_FILE_ONLY) {
                JsonNode answer = proxied.send(user, api, version, request);
                Set<Integer> codes = errorCodes(answer);
                return codes.equals(Set.of((int) Errors.CLUSTER_AUTHORIZATION_FAILED.code())) ? Optional.empty()
                        : found("D1 not kept: proxy error codes " + codes, null, answer);
            }
            if (kafkaRange == null) {
                return found("Kafka does not serve " + api + " at all", null, proxied.send(user, api, version,
                        request));
            }
            if (version < kafkaRange[0] || version > kafkaRange[1]) {
                return bridged(direct, proxied);
            }
            boolean mutating = RequestCorpus.mutates(api);
            Map<String, Long> before = mutating ? restored(state) : Map.of();
            JsonNode kafkaAnswer = direct.send(user, api, version, request);
            Map<String, String> kafkaEffect = mutating ? ClusterState.change(before, state.snapshot()) : Map.of();
            before = mutating ? restored(state) : Map.of();
            JsonNode proxyAnswer = proxied.send(user, api, version, request);
            Map<String, String> proxyEffect = mutating ? ClusterState.change(before, state.snapshot()) : Map.of();
            if (deliberate.isPresent()) {
                return errorCodes(kafkaAnswer).equals(errorCodes(proxyAnswer)) ? Optional.empty()
                        : found(deliberate.get().id() + ": error codes differ", kafkaAnswer, proxyAnswer);
            }
            List<String> paths = AnswerNormaliser.differences(AnswerNormaliser.normalise(api, kafkaAnswer),
                    AnswerNormaliser.normalise(api, proxyAnswer));
            if (asksCreation()) {
                paths = paths.stream().filter(path -> !REFUSED_CREATION.matcher(path).matches()).toList();
            }
            if (!kafkaEffect.equals(proxyEffect)) {
                paths = new ArrayList<>(paths);
                paths.add("effect: kafka " + kafkaEffect + ", proxy " + proxyEffect);
            }
            return paths.isEmpty() ? Optional.empty()
                    : found(String.join("\n      ", paths), kafkaAnswer, proxyAnswer);
        }

        /**
         * D4: a Metadata request that asks to create missing topics (below v4 every one does).
         * The test's Kafka runs with auto-creation off and answers a missing topic
         * UNKNOWN_TOPIC_OR_PARTITION; the proxy refuses the creation itself, as Kafka with its
         * default {@code auto.create.topics.enable=true} does, with TOPIC_AUTHORIZATION_FAILED.
         */
        private boolean asksCreation() {
            return request instanceof MetadataRequestData metadata
                    && (version < 4 || metadata.allowAutoTopicCreation());
        }

        /**
         * D3: a version Kafka does not serve (it would close the connection) is answered by the
         * proxy through a version Kafka does serve; Kafka's answer in the nearest such version
         * must carry the same error codes.
         */
        private Optional<Found> bridged(Connections direct, Connections proxied) throws Exception {
            short nearest = (short) Math.max(kafkaRange[0], Math.min(kafkaRange[1], version));
            JsonNode kafkaAnswer = direct.send(user, api, nearest, request);
            JsonNode proxyAnswer = proxied.send(user, api, version, request);
            return errorCodes(kafkaAnswer).equals(errorCodes(proxyAnswer)) ? Optional.empty()
                    : found("D3: error codes differ from Kafka's in v" + nearest, kafkaAnswer, proxyAnswer);
        }

        private static Map<String, Long> restored(ClusterState state) throws Exception {
            state.restore();
            return state.snapshot();
        }

        private Optional<Found> found(String what, JsonNode kafkaAnswer, JsonNode proxyAnswer) {
            String kind = api + " v" + version + ": " + what.lines().findFirst().orElse("")
                    .replaceAll("\\[\\d+]", "[]").replaceAll(": kafka .*", "");
            return Optional.of(new Found(kind, "seed " + seed + ", ACL set " + set + " " + acls
                    + "\n    user " + user + ", " + api + " v" + version + " request " + request
                    + "\n    differences:\n      " + what
                    + "\n    kafka: " + kafkaAnswer + "\n    proxy: " + proxyAnswer));
        }
    }

    /** A topic Kafka (auto-creation off) does not know and the proxy refuses to create: D4. */
    private static final Pattern REFUSED_CREATION = Pattern.compile("\\$\\.topics\\[\\d+]\\.errorCode: kafka "
            + Errors.UNKNOWN_TOPIC_OR_PARTITION.code() + ", proxy " + Errors.TOPIC_AUTHORIZATION_FAILED.code());

    /** One kind of difference (API, version and first differing path) and one full example of it. */
    private record Found(String kind, String detail) {
    }

    /** Every {@code errorCode} in an answer. */
    private static Set<Integer> errorCodes(JsonNode answer) {
        Set<Integer> codes = new HashSet<>();
        answer.findValues("errorCode").forEach(code -> codes.add(code.asInt()));
        return codes;
    }

    private static String report(long seed, Map<String, List<String>> differences) {
        StringBuilder text = new StringBuilder("The proxy answered differently from Kafka (seed " + seed
                + "; rerun with -Dleasehold.oracle.seed=" + seed + "):\n");
        differences.forEach((kind, examples) -> text.append("\n* ").append(kind).append(" (")
                .append(examples.size()).append("x), e.g. ").append(examples.get(0)).append('\n'));
        return text.toString();
    }

    /** Puts {@code acls} in force on both sides: Kafka's ACLs replaced, the proxy's file swapped. */
    private static void apply(int set, List<OracleAcl> acls) throws Exception {
        admin.deleteAcls(List.of(AclBindingFilter.ANY)).all().get(30, TimeUnit.SECONDS);
        Set<AclBinding> bindings = acls.stream().map(OracleAcl::binding).collect(Collectors.toSet());
        admin.createAcls(bindings).all().get(30, TimeUnit.SECONDS);
        await().atMost(Duration.ofSeconds(30)).until(() -> new HashSet<>(admin.describeAcls(AclBindingFilter.ANY)
                .values().get(10, TimeUnit.SECONDS)).equals(bindings));

        double reloads = proxy.metrics().value("leasehold_authorization_reloads_total", "outcome=\"success\"");
        Path next = Files.writeString(dir.resolve("acls.next"), "# ACL set " + set + "\n" + AclSets.yaml(acls));
        Files.move(next, aclsFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        await().atMost(Duration.ofSeconds(30)).until(() -> proxy.metrics()
                .value("leasehold_authorization_reloads_total", "outcome=\"success\"") > reloads);
    }

    /** The API keys and version ranges the proxy (or Kafka) at {@code port} advertises. */
    private static Map<ApiKeys, short[]> advertised(int port) throws Exception {
        try (SaslWireClient client = SaslWireClient.login("127.0.0.1", port, "alice", USERS.get("alice"),
                Duration.ofSeconds(30))) {
            AbstractResponse answer = client.send(ApiKeys.API_VERSIONS, (short) 3, new ApiVersionsRequestData()
                    .setClientSoftwareName("leasehold-oracle").setClientSoftwareVersion("1"));
            Map<ApiKeys, short[]> ranges = new TreeMap<>();
            for (ApiVersionsResponseData.ApiVersion api : ((ApiVersionsResponseData) answer.data()).apiKeys()) {
                ranges.put(ApiKeys.forId(api.apiKey()), new short[] {api.minVersion(), api.maxVersion()});
            }
            return ranges;
        }
    }

    private static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }

    /**
     * One logged-in connection per user to one side, opened when first needed and opened again
     * after a request went unanswered (the connection's order is lost then).
     */
    private static final class Connections implements AutoCloseable {
        private final String host;
        private final int port;
        private final Map<String, SaslWireClient> open = new TreeMap<>();

        Connections(String host, int port) {
            this.host = host;
            this.port = port;
        }

        /** The answer as JSON, or {@code {"noAnswer": reason}} when none came within {@link #NO_ANSWER}. */
        JsonNode send(String user, ApiKeys api, short version, ApiMessage request) throws IOException {
            SaslWireClient client = open.get(user);
            if (client == null) {
                client = SaslWireClient.login(host, port, user, USERS.get(user), NO_ANSWER);
                open.put(user, client);
            }
            try {
                return AnswerNormaliser.json(client.send(api, version, request), version);
            } catch (IOException e) {
                open.remove(user).close();
                return JsonNodeFactory.instance.objectNode()
                        .put("noAnswer", e.toString());
            }
        }

        @Override
        public void close() throws IOException {
            for (SaslWireClient client : open.values()) {
                client.close();
            }
        }
    }
}
