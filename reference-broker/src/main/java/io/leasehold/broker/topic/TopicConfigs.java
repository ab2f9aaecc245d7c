package io.leasehold.broker.topic;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Map;
import java.util.TreeMap;

/** A topic's config overrides as stored at {@code P/topics/{topic}/configs}: a JSON object of strings. */
final class TopicConfigs {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final TypeReference<TreeMap<String, String>> STRING_MAP = new TypeReference<>() {
    };

    private TopicConfigs() {
    }

    static String toJson(Map<String, String> configs) {
        try {
            return JSON.writeValueAsString(new TreeMap<>(configs));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a map of strings is always writable as JSON", e);
        }
    }

    /** @throws IllegalStateException if the stored value is not what this broker writes */
    static Map<String, String> parse(String json) {
        try {
            return JSON.readValue(json, STRING_MAP);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("topic configs in etcd are unreadable: " + json, e);
        }
    }
}
