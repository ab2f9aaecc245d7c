package io.leasehold.proxy.authorization.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchResponseDataJsonConverter;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.network.RequestConvertToJson;

/**
 * An answer as JSON (Kafka's own request-log converter, so every field of every version is
 * there), with only what must differ between a proxy and the broker behind it taken out: where
 * nodes live and what they are called, throttling, the cluster's id, free-text error messages,
 * and values the first of a pair of sends advanced (a producer id handed out, a produce's base
 * offset), and the order of lists (Kafka answers several APIs in an order of its own, the proxy
 * in the request's; which entries a list holds is compared, not where). Everything that decides
 * security stays: error codes, names, ids, offsets, records.
 */
final class AnswerNormaliser {
    /** Keys dropped wherever they occur. */
    private static final Set<String> EVERYWHERE = Set.of("throttleTimeMs", "clusterId", "controllerId", "host",
            "port", "nodeId", "leaderId", "replicaNodes", "isrNodes", "offlineReplicas", "brokers", "errorMessage",
            "rack", "endpointType");
    /** Keys dropped in one API's answers only, because the direct send of the pair changed them. */
    private static final Map<ApiKeys, Set<String>> PER_API = Map.of(
            ApiKeys.PRODUCE, Set.of("baseOffset", "logAppendTimeMs"),
            ApiKeys.INIT_PRODUCER_ID, Set.of("producerId", "producerEpoch"));

    private AnswerNormaliser() {
    }

    /**
     * The answer's JSON, as Kafka's request log would write it, except that a Fetch answer's
     * record sets are written out byte for byte (the log writes only their sizes): which records
     * a principal gets to read is what a Fetch decides.
     */
    static JsonNode json(AbstractResponse answer, short version) {
        if (answer.data() instanceof FetchResponseData fetch) {
            return FetchResponseDataJsonConverter.write(fetch, version, true);
        }
        return RequestConvertToJson.response(answer, version);
    }

    /** A normalised copy of {@code answer}. */
    static JsonNode normalise(ApiKeys api, JsonNode answer) {
        JsonNode copy = answer.deepCopy();
        strip(copy, PER_API.getOrDefault(api, Set.of()));
        return copy;
    }

    private static void strip(JsonNode node, Set<String> alsoDropped) {
        if (node instanceof ObjectNode object) {
            for (Iterator<String> names = object.fieldNames(); names.hasNext(); ) {
                String name = names.next();
                if (EVERYWHERE.contains(name) || alsoDropped.contains(name)) {
                    names.remove();
                }
            }
            object.forEach(child -> strip(child, alsoDropped));
        } else if (node instanceof ArrayNode array) {
            array.forEach(child -> strip(child, alsoDropped));
            List<JsonNode> items = new ArrayList<>();
            array.forEach(items::add);
            items.sort(Comparator.comparing(JsonNode::toString));
            array.removeAll();
            array.addAll(items);
        }
    }

    /** Every path where {@code kafka} and {@code proxy} differ, with both values; empty when they agree. */
    static List<String> differences(JsonNode kafka, JsonNode proxy) {
        List<String> found = new ArrayList<>();
        diff("$", kafka, proxy, found);
        return found;
    }

    private static void diff(String path, JsonNode kafka, JsonNode proxy, List<String> found) {
        if (kafka == null || proxy == null || kafka.getNodeType() != proxy.getNodeType()) {
            found.add(path + ": kafka " + kafka + ", proxy " + proxy);
        } else if (kafka.isObject()) {
            Set<String> names = new TreeSet<>();
            kafka.fieldNames().forEachRemaining(names::add);
            proxy.fieldNames().forEachRemaining(names::add);
            names.forEach(name -> diff(path + "." + name, kafka.get(name), proxy.get(name), found));
        } else if (kafka.isArray()) {
            if (kafka.size() != proxy.size()) {
                found.add(path + ": kafka " + kafka + ", proxy " + proxy);
                return;
            }
            for (int i = 0; i < kafka.size(); i++) {
                diff(path + "[" + i + "]", kafka.get(i), proxy.get(i), found);
            }
        } else if (!kafka.equals(proxy)) {
            found.add(path + ": kafka " + kafka + ", proxy " + proxy);
        }
    }
}
