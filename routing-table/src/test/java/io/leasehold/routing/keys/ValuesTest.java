package io.leasehold.routing.keys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.routing.snapshot.BrokerAddress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ValuesTest {

    @Test
    void brokerRegistrationRoundTrips() {
        BrokerAddress address = new BrokerAddress(4, "10.0.0.4", 19092, "eu-1a");
        assertThat(BrokerRegistration.parse(4, BrokerRegistration.toJson(address))).isEqualTo(address);
        BrokerAddress noRack = new BrokerAddress(5, "127.0.0.1", 19093, null);
        assertThat(BrokerRegistration.toJson(noRack)).isEqualTo("{\"host\":\"127.0.0.1\",\"port\":19093,\"rack\":null}");
        assertThat(BrokerRegistration.parse(5, BrokerRegistration.toJson(noRack))).isEqualTo(noRack);
    }

    @Test
    void brokerRegistrationToleratesExtraFieldsAndMissingRack() {
        assertThat(BrokerRegistration.parse(1, "{\"host\":\"h\",\"port\":9,\"zone\":\"z\"}"))
                .isEqualTo(new BrokerAddress(1, "h", 9, null));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "not json", "[]", "{\"port\":9}", "{\"host\":\"\",\"port\":9}", "{\"host\":1,\"port\":9}",
        "{\"host\":\"h\"}", "{\"host\":\"h\",\"port\":\"9\"}", "{\"host\":\"h\",\"port\":70000}",
        "{\"host\":\"h\",\"port\":9,\"rack\":3}"})
    void brokerRegistrationRejectsMalformedValuesNamingTheBroker(String json) {
        assertThatThrownBy(() -> BrokerRegistration.parse(7, json))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("broker 7");
    }

    @Test
    void ownerValueIsAPlainDecimalBrokerId() {
        assertThat(OwnerValue.encode(12)).isEqualTo("12");
        assertThat(OwnerValue.parse("12")).hasValue(12);
        assertThat(OwnerValue.parse(" 12")).isEmpty();
        assertThat(OwnerValue.parse("-1")).isEmpty();
        assertThat(OwnerValue.parse("")).isEmpty();
        assertThatThrownBy(() -> OwnerValue.encode(-1)).isInstanceOf(IllegalArgumentException.class);
    }
}
