package io.leasehold.proxy.authorization.oracle;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourceType;

/**
 * Seeded random ACL sets over a small universe of names, chosen so that literal names, prefixes
 * and {@code *} overlap ({@code orders} is a prefix of {@code orders.eu}; {@code s} of
 * {@code secret.x}), with ALLOW and DENY, the wildcard principal and operations that imply
 * others (ALL; READ, WRITE, DELETE and ALTER imply DESCRIBE; ALTER_CONFIGS implies
 * DESCRIBE_CONFIGS). The same seed always gives the same sets.
 */
final class AclSets {
    static final List<String> PRINCIPALS = List.of("User:alice", "User:bob", "User:*");
    private static final List<String> TOPIC_NAMES = List.of("orders", "orders.eu", "secret.x", "*");
    private static final List<String> TOPIC_PREFIXES = List.of("orders", "orders.", "secret", "s");
    private static final List<String> GROUP_NAMES = List.of("app.orders", "app.secret", "*");
    private static final List<String> GROUP_PREFIXES = List.of("app.", "app.s");
    private static final List<AclOperation> TOPIC_OPERATIONS = List.of(AclOperation.READ, AclOperation.WRITE,
            AclOperation.CREATE, AclOperation.DELETE, AclOperation.ALTER, AclOperation.DESCRIBE,
            AclOperation.DESCRIBE_CONFIGS, AclOperation.ALTER_CONFIGS, AclOperation.ALL);
    private static final List<AclOperation> GROUP_OPERATIONS = List.of(AclOperation.READ, AclOperation.DESCRIBE,
            AclOperation.DELETE, AclOperation.ALL);
    private static final List<AclOperation> CLUSTER_OPERATIONS = List.of(AclOperation.CREATE, AclOperation.ALTER,
            AclOperation.DESCRIBE, AclOperation.DESCRIBE_CONFIGS, AclOperation.ALTER_CONFIGS,
            AclOperation.IDEMPOTENT_WRITE, AclOperation.ALL);

    private final Random random;

    AclSets(long seed) {
        this.random = new Random(seed);
    }

    /** The next set: 4 to 14 rules, mostly ALLOW so that requests get through often enough to matter. */
    List<OracleAcl> next() {
        int size = 4 + random.nextInt(11);
        List<OracleAcl> acls = new ArrayList<>();
        while (acls.size() < size) {
            OracleAcl acl = one();
            if (!acls.contains(acl)) {
                acls.add(acl);
            }
        }
        return acls;
    }

    private OracleAcl one() {
        String principal = pick(PRINCIPALS);
        AclPermissionType permission = random.nextInt(5) == 0 ? AclPermissionType.DENY : AclPermissionType.ALLOW;
        int kind = random.nextInt(10);
        if (kind < 6) {
            boolean prefixed = random.nextInt(3) == 0;
            return new OracleAcl(principal, ResourceType.TOPIC, prefixed ? PatternType.PREFIXED : PatternType.LITERAL,
                    pick(prefixed ? TOPIC_PREFIXES : TOPIC_NAMES), pick(TOPIC_OPERATIONS), permission);
        }
        if (kind < 9) {
            boolean prefixed = random.nextInt(3) == 0;
            return new OracleAcl(principal, ResourceType.GROUP, prefixed ? PatternType.PREFIXED : PatternType.LITERAL,
                    pick(prefixed ? GROUP_PREFIXES : GROUP_NAMES), pick(GROUP_OPERATIONS), permission);
        }
        return new OracleAcl(principal, ResourceType.CLUSTER, PatternType.LITERAL, "kafka-cluster",
                pick(CLUSTER_OPERATIONS), permission);
    }

    private <T> T pick(List<T> items) {
        return items.get(random.nextInt(items.size()));
    }

    /** The proxy's ACL file for {@code acls}. */
    static String yaml(List<OracleAcl> acls) {
        StringBuilder yaml = new StringBuilder("acls:\n");
        acls.forEach(acl -> yaml.append(acl.yaml()));
        return acls.isEmpty() ? "acls: []\n" : yaml.toString();
    }
}
