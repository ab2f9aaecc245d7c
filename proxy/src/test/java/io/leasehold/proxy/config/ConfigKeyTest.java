package io.leasehold.proxy.config;

import org.junit.jupiter.api.Test;

import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class ConfigKeyTest {

    @Test
    void environmentNameIsUpperSnakeOfThePath() {
        assertThat(new ConfigKey("listener", "advertisedHost").envName()).isEqualTo("LEASEHOLD_LISTENER_ADVERTISED_HOST");
        assertThat(new ConfigKey("limits", "maxInFlightPerConnection").envName())
                .isEqualTo("LEASEHOLD_LIMITS_MAX_IN_FLIGHT_PER_CONNECTION");
        assertThat(new ConfigKey("etcd", "endpoints").envName()).isEqualTo("LEASEHOLD_ETCD_ENDPOINTS");
        assertThat(new ConfigKey("listener.sasl", "usersFile").envName()).isEqualTo("LEASEHOLD_LISTENER_SASL_USERS_FILE");
    }

    @Test
    void knownKeysAreExactlyTheConfigRecordComponents() {
        Map<String, List<String>> fromRecords = new LinkedHashMap<>();
        for (RecordComponent section : ProxyConfig.class.getRecordComponents()) {
            addSection(fromRecords, section);
        }

        // A nested section (listener.sasl, backends.tls) is the record component named by its last part;
        // its "enabled" switch has no component of its own: the record is there or null.
        Map<String, List<String>> bySectionName = new LinkedHashMap<>();
        ConfigKeys.SECTIONS.forEach((path, keys) -> bySectionName.put(path.substring(path.lastIndexOf('.') + 1),
                path.contains(".") ? keys.stream().filter(k -> !k.equals("enabled")).toList() : keys));
        assertThat(bySectionName).hasSameSizeAs(ConfigKeys.SECTIONS).containsExactlyInAnyOrderEntriesOf(fromRecords);
    }

    /** A section's keys are its record's components, except components that are records: those are sections of their own. */
    private static void addSection(Map<String, List<String>> sections, RecordComponent section) {
        RecordComponent[] components = section.getType().getRecordComponents();
        sections.put(section.getName(), Arrays.stream(components).filter(c -> !c.getType().isRecord())
                .map(RecordComponent::getName).toList());
        Arrays.stream(components).filter(c -> c.getType().isRecord()).forEach(c -> addSection(sections, c));
    }
}
