package io.leasehold.proxy.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The {@code presentation} keys: defaults, node-per-owner settings, and every misuse named. */
class PresentationConfigTest {

    private static final String BASE = """
            listener: { port: 9092, advertisedHost: kafka.example }
            etcd: { endpoints: ["http://127.0.0.1:2379"] }
            backends: { bootstrap: ["127.0.0.1:19092"] }
            admin: { port: 9094 }
            """;

    private final ConfigLoader loader = new ConfigLoader(Map.of());

    @Test
    void withoutThePresentationSectionClientsSeeOneNode() throws ConfigException {
        assertThat(loader.parse(BASE, "config.yaml").presentation()).isEqualTo(ProxyConfig.Presentation.SINGLE_NODE);
    }

    @Test
    void singleNodeAwaitsEveryOwnerOfAProduceUnlessGivenAnOwnerDeadline() throws ConfigException {
        assertThat(loader.parse(BASE, "config.yaml").presentation().produceOwnerDeadline()).isNull();
        assertThat(loader.parse(BASE + "presentation: { produceOwnerDeadline: 1500ms }", "config.yaml").presentation())
                .isEqualTo(ProxyConfig.Presentation.singleNode(Duration.ofMillis(1500)));
    }

    @Test
    void produceOwnerDeadlineIsRefusedInNodePerOwnerModeAndWhenNotAPositiveDuration() {
        assertThatThrownBy(() -> loader.parse(BASE
                + "presentation: { mode: node-per-owner, nodePortBase: 9100, produceOwnerDeadline: 2s }", "config.yaml"))
                .hasMessageContaining("config.yaml: presentation.produceOwnerDeadline: is only used with "
                        + "presentation.mode: single-node");
        assertThatThrownBy(() -> loader.parse(BASE + "presentation: { produceOwnerDeadline: 0s }", "config.yaml"))
                .hasMessageContaining("presentation.produceOwnerDeadline")
                .hasMessageContaining("a positive duration");
    }

    @Test
    void nodePerOwnerWithAPortRangeDefaultsToSixteenNodesFromIdZero() throws ConfigException {
        ProxyConfig.Presentation shown = loader.parse(BASE + "presentation: { mode: node-per-owner, nodePortBase: 9100 }",
                "config.yaml").presentation();

        assertThat(shown).isEqualTo(new ProxyConfig.Presentation(ProxyConfig.PresentationMode.NODE_PER_OWNER, 9100,
                null, 0, 16));
        assertThat(shown.hasNodePorts()).isTrue();
    }

    @Test
    void nodePerOwnerWithAHostPatternOnlyNeedsNoExtraPorts() throws ConfigException {
        ProxyConfig.Presentation shown = loader.parse(BASE + """
                presentation: { mode: node-per-owner, nodeHostPattern: "broker-{id}.kafka.example", firstNodeId: 1,
                                nodeCount: 3 }
                """, "config.yaml").presentation();

        assertThat(shown).isEqualTo(new ProxyConfig.Presentation(ProxyConfig.PresentationMode.NODE_PER_OWNER, 0,
                "broker-{id}.kafka.example", 1, 3));
        assertThat(shown.hasNodePorts()).isFalse();
    }

    @Test
    void environmentVariablesSelectNodePerOwner() throws ConfigException {
        ProxyConfig.Presentation shown = new ConfigLoader(Map.of("LEASEHOLD_PRESENTATION_MODE", "node-per-owner",
                "LEASEHOLD_PRESENTATION_NODE_PORT_BASE", "20000", "LEASEHOLD_PRESENTATION_NODE_COUNT", "4"))
                .parse(BASE, "config.yaml").presentation();

        assertThat(shown).isEqualTo(new ProxyConfig.Presentation(ProxyConfig.PresentationMode.NODE_PER_OWNER, 20000,
                null, 0, 4));
    }

    @Test
    void nodePerOwnerWithoutDistinctNodeAddressesIsRefused() {
        assertThatThrownBy(() -> loader.parse(BASE + "presentation: { mode: node-per-owner }", "config.yaml"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("config.yaml: presentation.mode: node-per-owner needs a distinct address per node: "
                        + "set presentation.nodePortBase");
    }

    @Test
    void aPortRangePastTheLastPortOrOverTheListenerOrAdminPortIsRefused() {
        assertThatThrownBy(() -> loader.parse(BASE + "presentation: { mode: node-per-owner, nodePortBase: 65530 }",
                "config.yaml"))
                .hasMessageContaining("config.yaml: presentation.nodePortBase: the node ports 65530..65545 "
                        + "(presentation.nodeCount 16) go past 65535");
        assertThatThrownBy(() -> loader.parse(BASE + "presentation: { mode: node-per-owner, nodePortBase: 9090 }",
                "config.yaml"))
                .hasMessageContaining("presentation.nodePortBase: the node ports 9090..9105 include listener.port (9092)")
                .hasMessageContaining("presentation.nodePortBase: the node ports 9090..9105 include admin.port (9094)");
    }

    @Test
    void badValuesAreEachNamedWithWhatWasExpected() {
        assertThatThrownBy(() -> loader.parse(BASE + """
                presentation: { mode: one-per-broker, nodePortBase: 0, nodeHostPattern: "broker.kafka.example",
                                firstNodeId: -1, nodeCount: 5000 }
                """, "config.yaml"))
                .hasMessageContaining("presentation.mode: expected one of single-node, node-per-owner")
                .hasMessageContaining("presentation.nodePortBase: expected an integer 1..65535")
                .hasMessageContaining("presentation.nodeHostPattern: expected a host name containing {id}")
                .hasMessageContaining("presentation.firstNodeId: expected an integer 0..1000000")
                .hasMessageContaining("presentation.nodeCount: expected an integer 1..1024");
    }

    @Test
    void nodeKeysInSingleNodeModeAreRefusedRatherThanIgnored() {
        assertThatThrownBy(() -> loader.parse(BASE + "presentation: { nodePortBase: 9100, nodeCount: 3 }", "config.yaml"))
                .hasMessageContaining("presentation.nodePortBase: is only used with presentation.mode: node-per-owner")
                .hasMessageContaining("presentation.nodeCount: is only used with presentation.mode: node-per-owner");
    }
}
