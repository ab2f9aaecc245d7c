package io.leasehold.proxy.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every shipped alert rule is checked by Prometheus itself: {@code promtool test rules} runs the
 * cases in {@code alerts/alert-rules-test.yaml} (each alert firing on a broken series and quiet
 * on a healthy one) against the rules docs/operations.md explains, which the chart ships
 * unchanged (HelmChartTest).
 */
class AlertRulesTest {
    private static final String CASES = "alerts/alert-rules-test.yaml";

    private static ChartTools tools;
    private static String promtool;

    @TempDir
    Path dir;

    @BeforeAll
    static void installPromtool() {
        tools = ChartTools.install();
        promtool = tools.ensurePrometheus();
    }

    @Test
    void everyAlertRuleBehavesAsItsPromtoolCasesSay() throws IOException {
        Path cases = dir.resolve("alert-rules-test.yaml");
        try (InputStream in = AlertRulesTest.class.getClassLoader().getResourceAsStream(CASES)) {
            assertThat(in).as(CASES).isNotNull();
            Files.copy(in, cases);
        }
        Files.writeString(dir.resolve("rules.yaml"), tools.documentedAlertRules());

        CommandResult check = tools.run(List.of(promtool, "check", "rules", dir.resolve("rules.yaml").toString()), null);
        assertThat(check.succeeded()).as(check.describe()).isTrue();
        CommandResult test = tools.run(List.of(promtool, "test", "rules", cases.toString()), null);
        assertThat(test.succeeded()).as(test.describe()).isTrue();

        assertThat(firingCases(tools.readYaml(cases))).as("alerts with a case where they fire")
                .containsAll(tools.documentedAlertNames());
    }

    private static Set<String> firingCases(JsonNode cases) {
        Set<String> names = new HashSet<>();
        cases.path("tests").forEach(test -> test.path("alert_rule_test").forEach(check -> {
            if (!check.path("exp_alerts").isEmpty()) {
                names.add(check.path("alertname").asText());
            }
        }));
        return names;
    }
}
