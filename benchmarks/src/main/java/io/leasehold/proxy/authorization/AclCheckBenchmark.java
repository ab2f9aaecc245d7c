package io.leasehold.proxy.authorization;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The ACL check the proxy runs for each partition of a Produce request: 100 partitions (10
 * topics of 10) checked for WRITE against {@code rules} rules spread over 100 users (literal,
 * PREFIXED and wildcard patterns, a DENY in ten), every partition checked on its own (the
 * proxy itself checks each topic once per request, so this is the upper bound).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class AclCheckBenchmark {
    private static final int USERS = 100;
    private static final int TOPICS_PER_REQUEST = 10;
    private static final int PARTITIONS_PER_TOPIC = 10;

    @Param({"10", "1000"})
    public int rules;

    private AclRules index;
    private KafkaPrincipal principal;
    private String[] partitionTopics;

    @Setup
    public void buildRules() {
        Random random = new Random(11);
        List<AclBinding> bindings = new ArrayList<>();
        for (int i = 0; i < rules; i++) {
            String user = "User:user-" + (i % USERS);
            int kind = i % 10;
            ResourcePattern pattern = switch (kind) {
                case 0 -> new ResourcePattern(ResourceType.TOPIC, "*", PatternType.LITERAL);
                case 1, 2, 3 -> new ResourcePattern(ResourceType.TOPIC, "team-" + (i % 37) + "-", PatternType.PREFIXED);
                case 4 -> new ResourcePattern(ResourceType.GROUP, "group-" + i, PatternType.LITERAL);
                default -> new ResourcePattern(ResourceType.TOPIC, "team-" + (i % 37) + "-topic-" + i,
                        PatternType.LITERAL);
            };
            AclPermissionType permission = kind == 9 ? AclPermissionType.DENY : AclPermissionType.ALLOW;
            AclOperation operation = kind == 0 ? AclOperation.DESCRIBE : AclOperation.WRITE;
            bindings.add(new AclBinding(pattern, new AccessControlEntry(user, "*", operation, permission)));
        }
        index = AclRules.of(bindings);
        principal = new KafkaPrincipal(KafkaPrincipal.USER_TYPE, "user-" + random.nextInt(USERS));
        partitionTopics = new String[TOPICS_PER_REQUEST * PARTITIONS_PER_TOPIC];
        for (int t = 0; t < TOPICS_PER_REQUEST; t++) {
            String topic = "team-" + random.nextInt(37) + "-topic-" + random.nextInt(rules);
            for (int p = 0; p < PARTITIONS_PER_TOPIC; p++) {
                // Fresh String instances, as decoded from a request: equals() cannot shortcut on identity.
                partitionTopics[t * PARTITIONS_PER_TOPIC + p] = new String(topic);
            }
        }
    }

    /** One produce request of 100 partitions: returns how many were allowed. */
    @Benchmark
    public int produceRequestOf100Partitions() {
        int allowed = 0;
        for (String topic : partitionTopics) {
            if (index.allows(principal, AclOperation.WRITE, ResourceType.TOPIC, topic)) {
                allowed++;
            }
        }
        return allowed;
    }
}
