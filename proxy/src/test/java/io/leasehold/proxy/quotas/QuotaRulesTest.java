package io.leasehold.proxy.quotas;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;

/** Which entry's quota applies to a client: Kafka's precedence, for each quota type on its own. */
class QuotaRulesTest {
    private final QuotasFileParser parser = new QuotasFileParser();

    /** Every entity kind, each with a different produce rate, so the winner is visible by its value. */
    private static final String EVERY_LEVEL = """
            quotas:
              - {user: bob, clientId: app, producerByteRate: 1}
              - {user: bob, clientId: "<default>", producerByteRate: 2}
              - {user: bob, producerByteRate: 3}
              - {user: "<default>", clientId: app, producerByteRate: 4}
              - {user: "<default>", clientId: "<default>", producerByteRate: 5}
              - {user: "<default>", producerByteRate: 6}
              - {clientId: app, producerByteRate: 7}
              - {clientId: "<default>", producerByteRate: 8}
            """;

    @Test
    void theMostSpecificEntityWinsInKafkasOrder() throws QuotasFileException {
        String[] lines = EVERY_LEVEL.split("\n");
        // Drop the most specific entry one at a time: the next one in Kafka's order takes over.
        for (int winner = 1; winner <= 8; winner++) {
            StringBuilder file = new StringBuilder(lines[0]).append('\n');
            for (int i = winner; i <= 8; i++) {
                file.append(lines[i]).append('\n');
            }
            QuotaRules rules = parser.parse(file.toString(), "quotas.yaml");
            assertThat(rules.quota(QuotaType.PRODUCER_BYTE_RATE, Optional.of("bob"), "app"))
                    .as("with entries %d..8", winner).isEqualTo(OptionalDouble.of(winner));
        }
    }

    @Test
    void anAnonymousClientIsMatchedByClientIdEntriesOnly() throws QuotasFileException {
        QuotaRules rules = parser.parse(EVERY_LEVEL, "quotas.yaml");

        assertThat(rules.quota(QuotaType.PRODUCER_BYTE_RATE, Optional.empty(), "app")).hasValue(7);
        assertThat(rules.quota(QuotaType.PRODUCER_BYTE_RATE, Optional.empty(), "other")).hasValue(8);
    }

    @Test
    void eachQuotaTypeIsResolvedOnItsOwn() throws QuotasFileException {
        QuotaRules rules = parser.parse("""
                quotas:
                  - {user: etl, clientId: loader, consumerByteRate: 100}
                  - {user: etl, producerByteRate: 50}
                """, "quotas.yaml");

        assertThat(rules.quota(QuotaType.CONSUMER_BYTE_RATE, Optional.of("etl"), "loader")).hasValue(100);
        assertThat(rules.quota(QuotaType.PRODUCER_BYTE_RATE, Optional.of("etl"), "loader"))
                .as("the user entry sets the produce quota the more specific entry leaves out").hasValue(50);
        assertThat(rules.governingEntity(QuotaType.PRODUCER_BYTE_RATE, Optional.of("etl"), "loader"))
                .contains(new QuotaEntity(Optional.of("etl"), Optional.empty()));
        assertThat(rules.quota(QuotaType.CONSUMER_BYTE_RATE, Optional.of("etl"), "other")).isEmpty();
        assertThat(rules.quota(QuotaType.PRODUCER_BYTE_RATE, Optional.of("amy"), "loader")).isEmpty();
    }
}
