package io.leasehold.proxy.authorization;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.Resource;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * Reads the ACL file: {@code acls: [{principal, resourceType, patternType, name, operations,
 * permission}]}, Kafka's ACL vocabulary in YAML. {@code principal} is {@code User:NAME} or
 * {@code User:*}; {@code patternType} is LITERAL (the default; {@code name: "*"} is every
 * resource) or PREFIXED; a CLUSTER rule's name is {@code kafka-cluster} and may be left out.
 * Each operation must be one Kafka allows on the resource type. Every problem is reported with
 * the file, the entry's index and line, and the key.
 */
public final class AclsFileParser {
    private static final Set<String> ENTRY_KEYS = Set.of("principal", "resourceType", "patternType", "name",
            "operations", "permission");
    private static final String USER_PREFIX = KafkaPrincipal.USER_TYPE + ":";
    /** Kafka's "from any host": the proxy does not restrict rules by client address. */
    private static final String ANY_HOST = "*";
    /** The operations Kafka accepts on each resource type (ALL on every one). */
    private static final Map<ResourceType, Set<AclOperation>> OPERATIONS = Map.of(
            ResourceType.TOPIC, EnumSet.of(AclOperation.READ, AclOperation.WRITE, AclOperation.CREATE,
                    AclOperation.DELETE, AclOperation.ALTER, AclOperation.DESCRIBE, AclOperation.DESCRIBE_CONFIGS,
                    AclOperation.ALTER_CONFIGS, AclOperation.ALL),
            ResourceType.GROUP, EnumSet.of(AclOperation.READ, AclOperation.DESCRIBE, AclOperation.DELETE,
                    AclOperation.ALL),
            ResourceType.CLUSTER, EnumSet.of(AclOperation.CREATE, AclOperation.ALTER, AclOperation.DESCRIBE,
                    AclOperation.DESCRIBE_CONFIGS, AclOperation.ALTER_CONFIGS, AclOperation.IDEMPOTENT_WRITE,
                    AclOperation.CLUSTER_ACTION, AclOperation.ALL),
            ResourceType.TRANSACTIONAL_ID, EnumSet.of(AclOperation.WRITE, AclOperation.DESCRIBE, AclOperation.ALL));

    /** Every operation some resource type accepts, in the order messages list them. */
    private static final List<AclOperation> FILE_OPERATIONS = List.of(AclOperation.READ, AclOperation.WRITE,
            AclOperation.CREATE, AclOperation.DELETE, AclOperation.ALTER, AclOperation.DESCRIBE,
            AclOperation.DESCRIBE_CONFIGS, AclOperation.ALTER_CONFIGS, AclOperation.IDEMPOTENT_WRITE,
            AclOperation.CLUSTER_ACTION, AclOperation.ALL);

    private final YAMLMapper yaml = YAMLMapper.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

    /**
     * Parses {@code text}; {@code source} names the file in messages.
     *
     * @throws AclsFileException listing every problem found
     */
    public List<AclBinding> parse(String text, String source) throws AclsFileException {
        List<String> problems = new ArrayList<>();
        List<AclBinding> bindings = new ArrayList<>();
        try (JsonParser parser = yaml.createParser(text)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                throw new AclsFileException(List.of(source + ": expected a mapping with a list 'acls' at the top level"));
            }
            boolean sawAcls = false;
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String key = parser.currentName();
                JsonToken value = parser.nextToken();
                if (!key.equals("acls")) {
                    problems.add(source + ": " + key + " (line " + line(parser) + "): unknown key (known: acls)");
                    parser.skipChildren();
                } else if (value == JsonToken.VALUE_NULL) {
                    sawAcls = true;
                } else if (value != JsonToken.START_ARRAY) {
                    problems.add(source + ": acls (line " + line(parser) + "): expected a list of rules");
                    parser.skipChildren();
                } else {
                    sawAcls = true;
                    for (int i = 0; parser.nextToken() != JsonToken.END_ARRAY; i++) {
                        String where = source + ": acls[" + i + "] (line " + line(parser) + ")";
                        JsonNode entry = parser.readValueAsTree();
                        bindings.addAll(entry(entry, where, problems));
                    }
                }
            }
            if (!sawAcls) {
                problems.add(source + ": expected a list 'acls' at the top level (an empty list denies everything)");
            }
        } catch (JsonProcessingException e) {
            String where = e.getLocation() == null ? "" : " at line " + e.getLocation().getLineNr() + ", column "
                    + e.getLocation().getColumnNr();
            throw new AclsFileException(List.of(source + ": not valid YAML" + where + ": " + e.getOriginalMessage()));
        } catch (IOException e) {
            throw new AclsFileException(List.of(source + ": cannot be read: " + e.getMessage()));
        }
        if (!problems.isEmpty()) {
            throw new AclsFileException(problems);
        }
        return bindings;
    }

    private static int line(JsonParser parser) {
        return parser.currentTokenLocation().getLineNr();
    }

    private static List<AclBinding> entry(JsonNode entry, String where, List<String> problems) {
        if (!entry.isObject()) {
            problems.add(where + ": expected a mapping with " + String.join(", ", sorted(ENTRY_KEYS)));
            return List.of();
        }
        int before = problems.size();
        for (Iterator<String> it = entry.fieldNames(); it.hasNext(); ) {
            String key = it.next();
            if (!ENTRY_KEYS.contains(key)) {
                problems.add(where + "." + key + ": unknown key (known: " + String.join(", ", sorted(ENTRY_KEYS)) + ")");
            }
        }
        String principal = principal(entry.get("principal"), where + ".principal", problems);
        ResourceType type = choice(entry.get("resourceType"), where + ".resourceType", true,
                List.of(ResourceType.TOPIC, ResourceType.GROUP, ResourceType.CLUSTER, ResourceType.TRANSACTIONAL_ID),
                problems);
        PatternType patternType = entry.has("patternType")
                ? choice(entry.get("patternType"), where + ".patternType", true,
                        List.of(PatternType.LITERAL, PatternType.PREFIXED), problems)
                : PatternType.LITERAL;
        AclPermissionType permission = choice(entry.get("permission"), where + ".permission", true,
                List.of(AclPermissionType.ALLOW, AclPermissionType.DENY), problems);
        String name = name(entry.get("name"), type, patternType, where + ".name", problems);
        List<AclOperation> operations = operations(entry.get("operations"), type, where + ".operations", problems);
        if (problems.size() > before) {
            return List.of();
        }
        ResourcePattern pattern = new ResourcePattern(type, name, patternType);
        return operations.stream().map(op -> new AclBinding(pattern,
                new AccessControlEntry(principal, ANY_HOST, op, permission))).toList();
    }

    private static String principal(JsonNode node, String where, List<String> problems) {
        if (node == null || !node.isTextual()) {
            problems.add(where + ": expected \"User:NAME\" or \"User:*\"");
            return null;
        }
        String value = node.asText();
        if (!value.startsWith(USER_PREFIX) || value.length() == USER_PREFIX.length()) {
            problems.add(where + ": \"" + value + "\" is not \"User:NAME\" or \"User:*\" (the proxy's principals are "
                    + "users)");
            return null;
        }
        return value;
    }

    private static String name(JsonNode node, ResourceType type, PatternType patternType, String where,
                               List<String> problems) {
        if (node == null && type == ResourceType.CLUSTER) {
            return Resource.CLUSTER_NAME;
        }
        if (node == null || !node.isTextual() || node.asText().isEmpty()) {
            problems.add(where + ": expected a non-empty resource name (\"*\" for every resource)");
            return null;
        }
        String name = node.asText();
        if (type == ResourceType.CLUSTER && !name.equals(Resource.CLUSTER_NAME)) {
            problems.add(where + ": a CLUSTER rule's name is \"" + Resource.CLUSTER_NAME + "\" (or left out), not \""
                    + name + "\"");
            return null;
        }
        if (patternType == PatternType.PREFIXED && name.equals(ResourcePattern.WILDCARD_RESOURCE)) {
            problems.add(where + ": \"*\" with PREFIXED is no wildcard: use patternType LITERAL with name \"*\"");
            return null;
        }
        return name;
    }

    private static List<AclOperation> operations(JsonNode node, ResourceType type, String where,
                                                 List<String> problems) {
        if (node == null || !node.isArray() || node.isEmpty()) {
            problems.add(where + ": expected a non-empty list of operations");
            return List.of();
        }
        List<AclOperation> operations = new ArrayList<>();
        Set<AclOperation> allowed = type == null ? EnumSet.allOf(AclOperation.class) : OPERATIONS.get(type);
        for (int i = 0; i < node.size(); i++) {
            AclOperation op = choice(node.get(i), where + "[" + i + "]", false, FILE_OPERATIONS, problems);
            if (op == null) {
                continue;
            }
            if (!allowed.contains(op)) {
                problems.add(where + "[" + i + "]: " + op + " does not apply to " + type + " (applies: "
                        + allowed.stream().map(Enum::name).sorted().collect(Collectors.joining(", ")) + ")");
            } else if (!operations.contains(op)) {
                operations.add(op);
            }
        }
        return operations;
    }

    /** One of {@code known}, by its name in any case; {@code null} and a problem otherwise. */
    private static <E extends Enum<E>> E choice(JsonNode node, String where, boolean required, List<E> known,
                                                List<String> problems) {
        String names = known.stream().map(Enum::name).collect(Collectors.joining(", "));
        if (node == null || !node.isTextual()) {
            if (required || node != null) {
                problems.add(where + ": expected one of " + names);
            }
            return null;
        }
        String value = node.asText().toUpperCase(Locale.ROOT);
        for (E e : known) {
            if (e.name().equals(value)) {
                return e;
            }
        }
        problems.add(where + ": unknown value \"" + node.asText() + "\" (expected one of " + names + ")");
        return null;
    }

    private static List<String> sorted(Set<String> keys) {
        String[] array = keys.toArray(String[]::new);
        Arrays.sort(array);
        return List.of(array);
    }
}
