package io.leasehold.proxy.authorization;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * An immutable ACL rule set, indexed for Kafka's matching rules so that one check costs a few
 * hash look-ups whatever the number of rules or users: a resource matches the rules for its
 * literal name, the literal wildcard {@code *}, and every PREFIXED rule whose prefix starts its
 * name; within each, the rules of the principal ({@code User:NAME}) and of {@code User:*} are
 * found by name. A DENY for the operation (or ALL) wins; otherwise an ALLOW for the operation,
 * ALL, or an operation that implies it (READ, WRITE, DELETE and ALTER imply DESCRIBE;
 * ALTER_CONFIGS implies DESCRIBE_CONFIGS) lets the request through. Nothing matching means denied.
 */
public final class AclRules {
    /** The principal that matches every user. */
    static final String ANY_USER = KafkaPrincipal.USER_TYPE + ":*";

    private final List<AclBinding> bindings;
    private final Map<ResourceType, PatternIndex> byType;

    private AclRules(List<AclBinding> bindings, Map<ResourceType, PatternIndex> byType) {
        this.bindings = bindings;
        this.byType = byType;
    }

    /** The rules of {@code bindings}; the host of an entry is ignored (the proxy sees every client). */
    public static AclRules of(List<AclBinding> bindings) {
        Map<ResourceType, Map<String, PatternRules.Builder>> literal = new EnumMap<>(ResourceType.class);
        Map<ResourceType, Map<String, PatternRules.Builder>> prefixed = new EnumMap<>(ResourceType.class);
        for (AclBinding binding : bindings) {
            ResourcePattern pattern = binding.pattern();
            Map<ResourceType, Map<String, PatternRules.Builder>> target =
                    pattern.patternType() == PatternType.PREFIXED ? prefixed : literal;
            target.computeIfAbsent(pattern.resourceType(), t -> new HashMap<>())
                    .computeIfAbsent(pattern.name(), n -> new PatternRules.Builder()).add(binding.entry());
        }
        Map<ResourceType, PatternIndex> byType = new EnumMap<>(ResourceType.class);
        for (ResourceType type : ResourceType.values()) {
            Map<String, PatternRules.Builder> literals = literal.getOrDefault(type, Map.of());
            Map<String, PatternRules.Builder> prefixes = prefixed.getOrDefault(type, Map.of());
            if (!literals.isEmpty() || !prefixes.isEmpty()) {
                byType.put(type, PatternIndex.of(literals, prefixes));
            }
        }
        return new AclRules(List.copyOf(bindings), Collections.unmodifiableMap(byType));
    }

    /** An empty rule set: everything is denied. */
    public static AclRules none() {
        return of(List.of());
    }

    /** The rules as bindings, one per operation, in file order. */
    public List<AclBinding> bindings() {
        return bindings;
    }

    /** Whether {@code principal} may do {@code operation} on the resource {@code type}/{@code name}. */
    public boolean allows(KafkaPrincipal principal, AclOperation operation, ResourceType type, String name) {
        PatternIndex index = byType.get(type);
        if (index == null) {
            return false;
        }
        String user = principal.toString();
        int denyMask = bit(operation) | bit(AclOperation.ALL);
        int allowMask = denyMask | implying(operation);
        boolean allowed = false;
        for (PatternRules rules : index.matching(name)) {
            if ((rules.denied(user) & denyMask) != 0) {
                return false;
            }
            allowed |= (rules.allowed(user) & allowMask) != 0;
        }
        return allowed;
    }

    /**
     * Whether {@code principal} is allowed {@code operation} on some resource of {@code type}, by
     * Kafka's {@code authorizeByResourceType} (idempotent producers without IDEMPOTENT_WRITE need
     * WRITE on some topic): a DENY of the literal {@code *} refuses, an ALLOW of it allows; otherwise
     * some ALLOW must name a resource no DENY covers: a literal name that is neither denied by name
     * nor starts with a denied prefix, or a prefix that does not start with a denied prefix (a
     * denied literal name leaves the prefix's other names allowed).
     */
    public boolean allowsAny(KafkaPrincipal principal, AclOperation operation, ResourceType type) {
        PatternIndex index = byType.get(type);
        if (index == null) {
            return false;
        }
        String user = principal.toString();
        int mask = bit(operation) | bit(AclOperation.ALL);
        if ((index.wildcard.denied(user) & mask) != 0) {
            return false;
        }
        if ((index.wildcard.allowed(user) & mask) != 0) {
            return true;
        }
        List<String> deniedPrefixes = index.prefixed.entrySet().stream()
                .filter(e -> (e.getValue().denied(user) & mask) != 0).map(Map.Entry::getKey).toList();
        for (Map.Entry<String, PatternRules> literal : index.literal.entrySet()) {
            PatternRules rules = literal.getValue();
            if ((rules.allowed(user) & mask) != 0 && (rules.denied(user) & mask) == 0
                    && !startsWithAny(literal.getKey(), deniedPrefixes)) {
                return true;
            }
        }
        for (Map.Entry<String, PatternRules> prefix : index.prefixed.entrySet()) {
            if ((prefix.getValue().allowed(user) & mask) != 0 && !startsWithAny(prefix.getKey(), deniedPrefixes)) {
                return true;
            }
        }
        return false;
    }

    private static boolean startsWithAny(String name, List<String> prefixes) {
        return prefixes.stream().anyMatch(name::startsWith);
    }

    /** The number of bindings. */
    public int size() {
        return bindings.size();
    }

    private static int bit(AclOperation operation) {
        return 1 << operation.code();
    }

    /** The operations whose ALLOW also allows {@code operation} (Kafka's implied operations). */
    private static int implying(AclOperation operation) {
        return switch (operation) {
            case DESCRIBE -> bit(AclOperation.READ) | bit(AclOperation.WRITE) | bit(AclOperation.DELETE)
                    | bit(AclOperation.ALTER);
            case DESCRIBE_CONFIGS -> bit(AclOperation.ALTER_CONFIGS);
            default -> 0;
        };
    }

    /** One resource pattern's rules: the operations allowed and denied, as bit masks by principal. */
    private record PatternRules(Map<String, Integer> allow, Map<String, Integer> deny) {
        static final PatternRules EMPTY = new PatternRules(Map.of(), Map.of());

        int allowed(String user) {
            return allow.getOrDefault(user, 0) | allow.getOrDefault(ANY_USER, 0);
        }

        int denied(String user) {
            return deny.getOrDefault(user, 0) | deny.getOrDefault(ANY_USER, 0);
        }

        /** Collects one pattern's entries. */
        static final class Builder {
            private final Map<String, Integer> allow = new HashMap<>();
            private final Map<String, Integer> deny = new HashMap<>();

            void add(AccessControlEntry entry) {
                Map<String, Integer> target = entry.permissionType() == AclPermissionType.DENY ? deny : allow;
                target.merge(entry.principal(), bit(entry.operation()), (a, b) -> a | b);
            }

            PatternRules build() {
                return new PatternRules(Map.copyOf(allow), Map.copyOf(deny));
            }
        }
    }

    /** The rules of one resource type by pattern: literal names, the wildcard, and prefixes by length. */
    private static final class PatternIndex {
        private final Map<String, PatternRules> literal;
        private final PatternRules wildcard;
        private final Map<String, PatternRules> prefixed;
        /** The distinct prefix lengths, ascending, so a name is cut only where some prefix could match. */
        private final int[] prefixLengths;

        private PatternIndex(Map<String, PatternRules> literal, PatternRules wildcard, Map<String, PatternRules> prefixed,
                             int[] prefixLengths) {
            this.literal = literal;
            this.wildcard = wildcard;
            this.prefixed = prefixed;
            this.prefixLengths = prefixLengths;
        }

        static PatternIndex of(Map<String, PatternRules.Builder> literals, Map<String, PatternRules.Builder> prefixes) {
            Map<String, PatternRules> literal = new HashMap<>();
            PatternRules wildcard = PatternRules.EMPTY;
            for (Map.Entry<String, PatternRules.Builder> e : literals.entrySet()) {
                PatternRules rules = e.getValue().build();
                if (e.getKey().equals(ResourcePattern.WILDCARD_RESOURCE)) {
                    wildcard = rules;
                } else {
                    literal.put(e.getKey(), rules);
                }
            }
            Map<String, PatternRules> prefixed = new HashMap<>();
            TreeSet<Integer> lengths = new TreeSet<>();
            for (Map.Entry<String, PatternRules.Builder> e : prefixes.entrySet()) {
                PatternRules rules = e.getValue().build();
                prefixed.put(e.getKey(), rules);
                lengths.add(e.getKey().length());
            }
            return new PatternIndex(Map.copyOf(literal), wildcard, Map.copyOf(prefixed),
                    lengths.stream().mapToInt(Integer::intValue).toArray());
        }

        /** The rule sets whose pattern matches {@code name}. */
        List<PatternRules> matching(String name) {
            List<PatternRules> found = new ArrayList<>(4);
            PatternRules exact = literal.get(name);
            if (exact != null) {
                found.add(exact);
            }
            found.add(wildcard);
            for (int length : prefixLengths) {
                if (length > name.length()) {
                    break;
                }
                PatternRules byPrefix = prefixed.get(name.substring(0, length));
                if (byPrefix != null) {
                    found.add(byPrefix);
                }
            }
            return found;
        }
    }
}
