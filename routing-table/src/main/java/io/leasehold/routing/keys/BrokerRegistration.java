package io.leasehold.routing.keys;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.leasehold.routing.snapshot.BrokerAddress;

/**
 * The value of a {@code P/brokers/{id}} key: {@code {"host":"127.0.0.1","port":19092,"rack":null}}.
 * Reading is strict about the fields the routing needs and ignores fields it does not know, so a
 * broker may publish more about itself without breaking proxies.
 */
public final class BrokerRegistration {

    private static final ObjectMapper JSON = new ObjectMapper();

    private BrokerRegistration() {
    }

    /** The JSON value a broker writes for itself. */
    public static String toJson(BrokerAddress address) {
        ObjectNode node = JSON.createObjectNode();
        node.put("host", address.host());
        node.put("port", address.port());
        node.put("rack", address.rack());
        return node.toString();
    }

    /**
     * Reads a registration value.
     *
     * @throws IllegalArgumentException saying which field is wrong, if the value is not a JSON
     *                                  object with a non-empty string host, an integer port
     *                                  1..65535 and a string or null rack
     */
    public static BrokerAddress parse(int brokerId, String json) {
        JsonNode node;
        try {
            node = JSON.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("broker " + brokerId + " registration is not JSON: " + e.getOriginalMessage());
        }
        if (node == null || !node.isObject()) {
            throw new IllegalArgumentException("broker " + brokerId + " registration is not a JSON object: " + json);
        }
        JsonNode host = node.get("host");
        if (host == null || !host.isTextual() || host.asText().isBlank()) {
            throw new IllegalArgumentException("broker " + brokerId + " registration has no non-empty string \"host\": " + json);
        }
        JsonNode port = node.get("port");
        if (port == null || !port.isInt() || port.asInt() < 1 || port.asInt() > 65535) {
            throw new IllegalArgumentException("broker " + brokerId + " registration \"port\" is not an integer 1..65535: " + json);
        }
        JsonNode rack = node.get("rack");
        if (rack != null && !rack.isNull() && !rack.isTextual()) {
            throw new IllegalArgumentException("broker " + brokerId + " registration \"rack\" is neither a string nor null: " + json);
        }
        String rackName = rack == null || rack.isNull() ? null : rack.asText();
        return new BrokerAddress(brokerId, host.asText(), port.asInt(), rackName);
    }
}
