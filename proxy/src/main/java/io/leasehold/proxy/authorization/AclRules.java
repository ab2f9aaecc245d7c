package io.leasehold.proxy.authorization;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
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
 * hash look-ups whatever the number of rules: a resource matches the rules for its literal name,
 * the literal wildcard {@code *}, and every PREFIXED rule whose prefix starts its name. Among
 * the matching rules for the principal ({@code User:NAME} or {@code User:*}), a DENY for the
 * operation (or ALL) wins; otherwise an ALLOW for the operation, ALL, or an operation that
 * implies it (READ, WRITE, DELETE and ALTER imply DESCRIBE; ALTER_CONFIGS implies
 * DESCRIBE_CONFIGS) lets the request through. Nothing matching means denied.
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
        Map<ResourceType, Map<String, List<Rule>>> literal = new EnumMap<>(ResourceType.class);
        Map<ResourceType, Map<String, List<Rule>>> prefixed = new EnumMap<>(ResourceType.class);
        for (AclBinding binding : bindings) {
            ResourcePattern pattern = binding.pattern();
            Map<ResourceType, Map<String, List<Rule>>> target =
                    pattern.patternType() == PatternType.PREFIXED ? prefixed : literal;
            target.computeIfAbsent(pattern.resourceType(), t -> new HashMap<>())
                    .computeIfAbsent(pattern.name(), n -> new ArrayList<>()).add(Rule.of(binding.entry()));
        }
        Map<ResourceType, PatternIndex> byType = new EnumMap<>(ResourceType.class);
        for (ResourceType type : ResourceType.values()) {
            Map<String, List<Rule>> literals = literal.getOrDefault(type, Map.of());
            Map<String, List<Rule>> prefixes = prefixed.getOrDefault(type, Map.of());
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
        for (Rule[] rules : index.matching(name)) {
            for (Rule rule : rules) {
                if (!rule.matches(user)) {
                    continue;
                }
                if (rule.deny()) {
                    if ((rule.operations() & denyMask) != 0) {
                        return false;
                    }
                } else if ((rule.operations() & allowMask) != 0) {
                    allowed = true;
                }
            }
        }
        return allowed;
    }

    /**
     * Whether {@code principal} is allowed {@code operation} on some resource of {@code type}:
     * an ALLOW rule for it exists, and no DENY for it covers every name (literal {@code *}). This
     * is Kafka's "on any topic" test, used for idempotent producers without IDEMPOTENT_WRITE.
     */
    public boolean allowsAny(KafkaPrincipal principal, AclOperation operation, ResourceType type) {
        PatternIndex index = byType.get(type);
        if (index == null) {
            return false;
        }
        String user = principal.toString();
        int mask = bit(operation) | bit(AclOperation.ALL);
        for (Rule rule : index.wildcard) {
            if (rule.deny() && rule.matches(user) && (rule.operations() & mask) != 0) {
                return false;
            }
        }
        return index.all.stream().anyMatch(rule -> !rule.deny() && rule.matches(user)
                && (rule.operations() & mask) != 0);
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

    /** One principal's permission for a set of operations on one resource pattern. */
    private record Rule(String principal, boolean anyUser, int operations, boolean deny) {
        static Rule of(AccessControlEntry entry) {
            return new Rule(entry.principal(), entry.principal().equals(ANY_USER), bit(entry.operation()),
                    entry.permissionType() == AclPermissionType.DENY);
        }

        boolean matches(String user) {
            return anyUser || principal.equals(user);
        }
    }

    /** The rules of one resource type by pattern: literal names, the wildcard, and prefixes by length. */
    private static final class PatternIndex {
        private final Map<String, Rule[]> literal;
        private final Rule[] wildcard;
        private final Map<String, Rule[]> prefixed;
        /** The distinct prefix lengths, ascending, so a name is cut only where some prefix could match. */
        private final int[] prefixLengths;
        private final List<Rule> all;

        private PatternIndex(Map<String, Rule[]> literal, Rule[] wildcard, Map<String, Rule[]> prefixed,
                             int[] prefixLengths, List<Rule> all) {
            this.literal = literal;
            this.wildcard = wildcard;
            this.prefixed = prefixed;
            this.prefixLengths = prefixLengths;
            this.all = all;
        }

        static PatternIndex of(Map<String, List<Rule>> literals, Map<String, List<Rule>> prefixes) {
            Map<String, Rule[]> literal = new HashMap<>();
            Rule[] wildcard = new Rule[0];
            List<Rule> all = new ArrayList<>();
            for (Map.Entry<String, List<Rule>> e : literals.entrySet()) {
                Rule[] rules = merged(e.getValue());
                all.addAll(Arrays.asList(rules));
                if (e.getKey().equals(ResourcePattern.WILDCARD_RESOURCE)) {
                    wildcard = rules;
                } else {
                    literal.put(e.getKey(), rules);
                }
            }
            Map<String, Rule[]> prefixed = new HashMap<>();
            TreeSet<Integer> lengths = new TreeSet<>();
            for (Map.Entry<String, List<Rule>> e : prefixes.entrySet()) {
                Rule[] rules = merged(e.getValue());
                all.addAll(Arrays.asList(rules));
                prefixed.put(e.getKey(), rules);
                lengths.add(e.getKey().length());
            }
            return new PatternIndex(Map.copyOf(literal), wildcard, Map.copyOf(prefixed),
                    lengths.stream().mapToInt(Integer::intValue).toArray(), List.copyOf(all));
        }

        /** Folds one pattern's rules for the same principal and permission into one operation mask. */
        private static Rule[] merged(List<Rule> rules) {
            Map<List<Object>, Rule> byPrincipal = new LinkedHashMap<>();
            for (Rule rule : rules) {
                byPrincipal.merge(List.of(rule.principal(), rule.deny()), rule, (a, b) ->
                        new Rule(a.principal(), a.anyUser(), a.operations() | b.operations(), a.deny()));
            }
            return byPrincipal.values().toArray(Rule[]::new);
        }

        /** The rule groups whose pattern matches {@code name}. */
        List<Rule[]> matching(String name) {
            List<Rule[]> found = new ArrayList<>(4);
            Rule[] exact = literal.get(name);
            if (exact != null) {
                found.add(exact);
            }
            if (wildcard.length > 0) {
                found.add(wildcard);
            }
            for (int length : prefixLengths) {
                if (length > name.length()) {
                    break;
                }
                Rule[] byPrefix = prefixed.get(name.substring(0, length));
                if (byPrefix != null) {
                    found.add(byPrefix);
                }
            }
            return found;
        }
    }
}
