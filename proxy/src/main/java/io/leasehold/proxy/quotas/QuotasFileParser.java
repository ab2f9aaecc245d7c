package io.leasehold.proxy.quotas;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reads the quotas file: {@code quotas: [{user, clientId, producerByteRate, consumerByteRate,
 * requestPercentage}]}, Kafka's client quota entities and quotas in YAML. Each entry names a
 * user, a client id or both ({@code "<default>"} for Kafka's default entity) and sets at least
 * one positive quota; an entity appears once. Every problem is reported with the file, the
 * entry's index and line, and the key.
 */
public final class QuotasFileParser {
    private static final Set<String> ENTITY_KEYS = Set.of("user", "clientId");
    private static final Set<String> ENTRY_KEYS;

    static {
        Set<String> keys = new TreeSet<>(ENTITY_KEYS);
        for (QuotaType type : QuotaType.values()) {
            keys.add(type.fileKey());
        }
        ENTRY_KEYS = Set.copyOf(keys);
    }

    /** The known entry keys, sorted, as messages list them. */
    private static final String KNOWN_KEYS = String.join(", ", new TreeSet<>(ENTRY_KEYS));

    private final YAMLMapper yaml = YAMLMapper.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

    /**
     * Parses {@code text}; {@code source} names the file in messages.
     *
     * @throws QuotasFileException listing every problem found
     */
    public QuotaRules parse(String text, String source) throws QuotasFileException {
        List<String> problems = new ArrayList<>();
        List<QuotaEntry> entries = new ArrayList<>();
        Map<QuotaEntity, String> seen = new HashMap<>();
        try (JsonParser parser = yaml.createParser(text)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                throw new QuotasFileException(List.of(source + ": expected a mapping with a list 'quotas' at the top "
                        + "level"));
            }
            boolean sawQuotas = false;
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String key = parser.currentName();
                JsonToken value = parser.nextToken();
                if (!key.equals("quotas")) {
                    problems.add(source + ": " + key + " (line " + line(parser) + "): unknown key (known: quotas)");
                    parser.skipChildren();
                } else if (value == JsonToken.VALUE_NULL) {
                    sawQuotas = true;
                } else if (value != JsonToken.START_ARRAY) {
                    problems.add(source + ": quotas (line " + line(parser) + "): expected a list of entries");
                    parser.skipChildren();
                } else {
                    sawQuotas = true;
                    for (int i = 0; parser.nextToken() != JsonToken.END_ARRAY; i++) {
                        String where = source + ": quotas[" + i + "] (line " + line(parser) + ")";
                        JsonNode node = parser.readValueAsTree();
                        entry(node, where, problems).ifPresent(entry -> {
                            String first = seen.putIfAbsent(entry.entity(), where);
                            if (first != null) {
                                problems.add(where + ": " + entry.entity() + " already has an entry at " + first
                                        .substring(source.length() + 2));
                            } else {
                                entries.add(entry);
                            }
                        });
                    }
                }
            }
            if (!sawQuotas) {
                problems.add(source + ": expected a list 'quotas' at the top level (an empty list sets no quotas)");
            }
        } catch (JsonProcessingException e) {
            String where = e.getLocation() == null ? "" : " at line " + e.getLocation().getLineNr() + ", column "
                    + e.getLocation().getColumnNr();
            throw new QuotasFileException(List.of(source + ": not valid YAML" + where + ": " + e.getOriginalMessage()));
        } catch (IOException e) {
            throw new QuotasFileException(List.of(source + ": cannot be read: " + e.getMessage()));
        }
        if (!problems.isEmpty()) {
            throw new QuotasFileException(problems);
        }
        return QuotaRules.of(entries);
    }

    private static int line(JsonParser parser) {
        return parser.currentTokenLocation().getLineNr();
    }

    private static Optional<QuotaEntry> entry(JsonNode node, String where, List<String> problems) {
        if (!node.isObject()) {
            problems.add(where + ": expected a mapping with " + KNOWN_KEYS);
            return Optional.empty();
        }
        int before = problems.size();
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String key = it.next();
            if (!ENTRY_KEYS.contains(key)) {
                problems.add(where + "." + key + ": unknown key (known: " + KNOWN_KEYS + ")");
            }
        }
        Optional<String> user = name(node.get("user"), where + ".user", problems);
        Optional<String> clientId = name(node.get("clientId"), where + ".clientId", problems);
        if (!node.has("user") && !node.has("clientId")) {
            problems.add(where + ": names no entity: set user, clientId or both (\"" + QuotaEntity.DEFAULT
                    + "\" for Kafka's default)");
        }
        Map<QuotaType, Double> quotas = new EnumMap<>(QuotaType.class);
        for (QuotaType type : QuotaType.values()) {
            JsonNode value = node.get(type.fileKey());
            if (value == null) {
                continue;
            }
            if (!value.isNumber() || !(value.asDouble() > 0) || Double.isInfinite(value.asDouble())) {
                problems.add(where + "." + type.fileKey() + ": expected a positive number, was " + value);
            } else {
                quotas.put(type, value.asDouble());
            }
        }
        if (quotas.isEmpty() && problems.size() == before) {
            problems.add(where + ": sets no quota (set one of " + String.join(", ", List.of(
                    QuotaType.PRODUCER_BYTE_RATE.fileKey(), QuotaType.CONSUMER_BYTE_RATE.fileKey(),
                    QuotaType.REQUEST_PERCENTAGE.fileKey())) + ")");
        }
        if (problems.size() > before) {
            return Optional.empty();
        }
        return Optional.of(new QuotaEntry(new QuotaEntity(user, clientId), quotas));
    }

    private static Optional<String> name(JsonNode node, String where, List<String> problems) {
        if (node == null) {
            return Optional.empty();
        }
        if (!node.isTextual() || node.asText().isEmpty()) {
            problems.add(where + ": expected a non-empty name or \"" + QuotaEntity.DEFAULT + "\"");
            return Optional.empty();
        }
        return Optional.of(node.asText());
    }
}
