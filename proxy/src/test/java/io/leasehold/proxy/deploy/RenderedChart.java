package io.leasehold.proxy.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import io.leasehold.proxy.config.ConfigException;
import io.leasehold.proxy.config.ConfigLoader;
import io.leasehold.proxy.config.ProxyConfig;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The documents one {@code helm template} run produced, with lookups the chart tests need. */
record RenderedChart(String manifests, List<JsonNode> documents) {

    JsonNode only(String kind) {
        List<JsonNode> matching = all(kind);
        if (matching.size() != 1) {
            throw new AssertionError("expected exactly one " + kind + ", found " + matching.size());
        }
        return matching.get(0);
    }

    List<JsonNode> all(String kind) {
        return documents.stream().filter(d -> kind.equals(d.path("kind").asText())).toList();
    }

    Optional<JsonNode> named(String kind, String name) {
        return all(kind).stream().filter(d -> name.equals(d.path("metadata").path("name").asText())).findFirst();
    }

    JsonNode podSpec() {
        return only("Deployment").path("spec").path("template").path("spec");
    }

    JsonNode proxyContainer() {
        for (JsonNode container : podSpec().path("containers")) {
            if ("proxy".equals(container.path("name").asText())) {
                return container;
            }
        }
        throw new AssertionError("no container named proxy");
    }

    /** The proxy.yaml of the one ConfigMap that has it (the dashboard ConfigMap does not). */
    String configText() {
        List<JsonNode> configs = all("ConfigMap").stream().filter(c -> c.path("data").has("proxy.yaml")).toList();
        if (configs.size() != 1) {
            throw new AssertionError("expected exactly one ConfigMap with proxy.yaml, found " + configs.size());
        }
        return configs.get(0).path("data").path("proxy.yaml").asText();
    }

    /**
     * The rendered proxy.yaml loaded by the proxy's own ConfigLoader, with the container's
     * plain environment values applied as overrides, as the proxy sees them at start-up.
     */
    ProxyConfig proxyConfig() throws ConfigException {
        Map<String, String> environment = new HashMap<>();
        for (JsonNode variable : proxyContainer().path("env")) {
            if (variable.has("value")) {
                environment.put(variable.path("name").asText(), variable.path("value").asText());
            }
        }
        return new ConfigLoader(environment).parse(configText(), "ConfigMap proxy.yaml");
    }
}
