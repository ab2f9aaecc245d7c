package io.leasehold.proxy.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The chart's Grafana dashboard ({@code files/grafana-dashboard.json}) and the PromQL of its panels. */
record GrafanaDashboard(JsonNode json) {

    /** One query of one panel. */
    record PanelQuery(String panel, String refId, String expr) {

        /**
         * The query as Prometheus gets it from Grafana: each variable (name without {@code $})
         * replaced by its value. Fails if a {@code $} is left, so a new variable cannot go unnoticed.
         */
        String resolved(Map<String, String> variables) {
            String promql = expr;
            for (Map.Entry<String, String> variable : variables.entrySet()) {
                promql = promql.replace("$" + variable.getKey(), variable.getValue());
            }
            if (promql.contains("$")) {
                throw new AssertionError("panel '" + panel + "' query " + refId + " uses a variable not given: " + promql);
            }
            return promql;
        }
    }

    static GrafanaDashboard read(Path file) {
        try {
            return new GrafanaDashboard(new ObjectMapper().readTree(file.toFile()));
        } catch (IOException e) {
            throw new UncheckedIOException("could not read the dashboard " + file, e);
        }
    }

    static GrafanaDashboard ofChart(Path chart) {
        return read(chart.resolve("files/grafana-dashboard.json"));
    }

    /** Every panel that is not a row, including panels nested in collapsed rows. */
    List<JsonNode> panels() {
        List<JsonNode> panels = new ArrayList<>();
        for (JsonNode panel : json.path("panels")) {
            if ("row".equals(panel.path("type").asText())) {
                panel.path("panels").forEach(panels::add);
            } else {
                panels.add(panel);
            }
        }
        return panels;
    }

    List<PanelQuery> queries() {
        List<PanelQuery> queries = new ArrayList<>();
        for (JsonNode panel : panels()) {
            for (JsonNode target : panel.path("targets")) {
                queries.add(new PanelQuery(panel.path("title").asText(), target.path("refId").asText(),
                        target.path("expr").asText()));
            }
        }
        return queries;
    }

    /** The templating variable called {@code name}, or a missing node. */
    JsonNode variable(String name) {
        for (JsonNode variable : json.path("templating").path("list")) {
            if (name.equals(variable.path("name").asText())) {
                return variable;
            }
        }
        return json.path("templating").path("list").path(name);
    }
}
