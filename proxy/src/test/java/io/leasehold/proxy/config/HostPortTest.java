package io.leasehold.proxy.config;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class HostPortTest {

    @Test
    void parsesNamesIpv4AndBracketedIpv6() {
        assertThat(HostPort.parse("broker-0.svc:19092")).isEqualTo(new HostPort("broker-0.svc", 19092));
        assertThat(HostPort.parse(" 10.1.2.3:9092 ")).isEqualTo(new HostPort("10.1.2.3", 9092));
        assertThat(HostPort.parse("[::1]:9092")).isEqualTo(new HostPort("::1", 9092));
    }

    @Test
    void printsTheFormItParses() {
        assertThat(new HostPort("::1", 9092)).hasToString("[::1]:9092");
        assertThat(HostPort.parse(new HostPort("b", 1).toString())).isEqualTo(new HostPort("b", 1));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "host", ":9092", "host:", "host:x", "host:0", "host:65536", "::1:9092",
            "[::1]9092", "http://h:1", "a b:1"})
    void rejectsMalformedAddresses(String text) {
        assertThatThrownBy(() -> HostPort.parse(text)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("\"" + text + "\"");
    }
}
