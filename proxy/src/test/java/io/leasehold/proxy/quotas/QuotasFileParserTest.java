package io.leasehold.proxy.quotas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The quotas file format: what it accepts, and where it says a bad file is wrong. */
class QuotasFileParserTest {
    private final QuotasFileParser parser = new QuotasFileParser();

    @Test
    void readsEntitiesAndTheirQuotasInFileOrder() throws QuotasFileException {
        QuotaRules rules = parser.parse("""
                quotas:
                  - {user: slow, producerByteRate: 262144}
                  - {user: etl, clientId: loader, consumerByteRate: 10485760}
                  - {user: "<default>", requestPercentage: 200}
                  - {clientId: "<default>", producerByteRate: 1000, consumerByteRate: 2000.5}
                """, "quotas.yaml");

        assertThat(rules.entries()).containsExactly(
                new QuotaEntry(new QuotaEntity(Optional.of("slow"), Optional.empty()),
                        Map.of(QuotaType.PRODUCER_BYTE_RATE, 262144.0)),
                new QuotaEntry(new QuotaEntity(Optional.of("etl"), Optional.of("loader")),
                        Map.of(QuotaType.CONSUMER_BYTE_RATE, 10485760.0)),
                new QuotaEntry(new QuotaEntity(Optional.of("<default>"), Optional.empty()),
                        Map.of(QuotaType.REQUEST_PERCENTAGE, 200.0)),
                new QuotaEntry(new QuotaEntity(Optional.empty(), Optional.of("<default>")),
                        Map.of(QuotaType.PRODUCER_BYTE_RATE, 1000.0, QuotaType.CONSUMER_BYTE_RATE, 2000.5)));
    }

    @Test
    void anEmptyListSetsNoQuotas() throws QuotasFileException {
        assertThat(parser.parse("quotas: []\n", "quotas.yaml").entries()).isEmpty();
    }

    @Test
    void reportsEveryProblemWithFileEntryLineAndKey() {
        assertThatThrownBy(() -> parser.parse("""
                quotas:
                  - {user: slow, producerByteRate: -5}
                  - {producerByteRate: 100}
                  - {user: bob, produceByteRate: 100}
                  - {clientId: "<default>", producerByteRate: 7}
                  - {clientId: 12, consumerByteRate: "fast"}
                  - {user: amy}
                  - {clientId: "<default>", consumerByteRate: 9}
                """, "quotas.yaml"))
                .isInstanceOf(QuotasFileException.class)
                .satisfies(e -> assertThat(((QuotasFileException) e).problems()).containsExactly(
                        "quotas.yaml: quotas[0] (line 2).producerByteRate: expected a positive number, was -5",
                        "quotas.yaml: quotas[1] (line 3): names no entity: set user, clientId or both (\"<default>\" "
                                + "for Kafka's default)",
                        "quotas.yaml: quotas[2] (line 4).produceByteRate: unknown key (known: clientId, "
                                + "consumerByteRate, producerByteRate, requestPercentage, user)",
                        "quotas.yaml: quotas[4] (line 6).clientId: expected a non-empty name or \"<default>\"",
                        "quotas.yaml: quotas[4] (line 6).consumerByteRate: expected a positive number, was \"fast\"",
                        "quotas.yaml: quotas[5] (line 7): sets no quota (set one of producerByteRate, "
                                + "consumerByteRate, requestPercentage)",
                        "quotas.yaml: quotas[6] (line 8): clientId=<default> already has an entry at quotas[3] "
                                + "(line 5)"));
    }

    @Test
    void aFileWithoutTheQuotasListOrNotYamlIsRefused() {
        assertThatThrownBy(() -> parser.parse("quota: []\n", "quotas.yaml"))
                .hasMessageContaining("quotas.yaml: quota (line 1): unknown key (known: quotas)")
                .hasMessageContaining("quotas.yaml: expected a list 'quotas' at the top level");
        assertThatThrownBy(() -> parser.parse("quotas: [\n", "quotas.yaml"))
                .hasMessageStartingWith("quotas.yaml: not valid YAML at line");
    }
}
