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
            fromRecords.put(section.getName(), Arrays.stream(section.getType().getRecordComponents())
                    .map(RecordComponent::getName).toList());
        }

        // A nested section (listener.sasl) is the record component named by its last part.
        Map<String, List<String>> bySectionName = new LinkedHashMap<>();
        ConfigKeys.SECTIONS.forEach((path, keys) -> bySectionName.put(path.substring(path.lastIndexOf('.') + 1), keys));
        assertThat(bySectionName).hasSameSizeAs(ConfigKeys.SECTIONS).containsExactlyInAnyOrderEntriesOf(fromRecords);
    }
}
