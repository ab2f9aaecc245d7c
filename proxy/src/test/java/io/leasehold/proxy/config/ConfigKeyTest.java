package io.leasehold.proxy.config;

import org.junit.jupiter.api.Test;

import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class ConfigKeyTest {

    /** Top-level config records whose keys live under another section in the YAML. */
    private static final Map<String, String> LISTED_UNDER = Map.of("sasl", "listener.sasl");

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
            addSection(fromRecords, "", section);
        }

        // A nested section (listener.sasl, backends.tls) is the record component at that path; its
        // "enabled" switch has no component of its own: the record is there or null.
        Map<String, List<String>> known = new LinkedHashMap<>();
        ConfigKeys.SECTIONS.forEach((path, keys) -> known.put(path,
                path.contains(".") ? keys.stream().filter(k -> !k.equals("enabled")).toList() : keys));
        assertThat(known).containsExactlyInAnyOrderEntriesOf(fromRecords);
    }

    /**
     * A section's keys are its record's components, except components that are records: those are
     * sections of their own, named by their path (two sections may share a last part: listener.sasl, backends.sasl).
     */
    private static void addSection(Map<String, List<String>> sections, String parent, RecordComponent section) {
        String path = parent.isEmpty() ? LISTED_UNDER.getOrDefault(section.getName(), section.getName())
                : parent + "." + section.getName();
        RecordComponent[] components = section.getType().getRecordComponents();
        sections.put(path, Arrays.stream(components).filter(c -> !c.getType().isRecord())
                .map(RecordComponent::getName).toList());
        Arrays.stream(components).filter(c -> c.getType().isRecord()).forEach(c -> addSection(sections, path, c));
    }
}
