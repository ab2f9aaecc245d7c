package io.leasehold.proxy.logging;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ClientTextTest {

    @Test
    void leavesAnOrdinaryClientIdAlone() {
        assertThat(ClientText.escape("consumer-orders-1")).isEqualTo("consumer-orders-1");
    }

    @Test
    void writesNewlinesAndOtherControlCharactersAsHexEscapes() {
        assertThat(ClientText.escape("a\nb\rc\td\u0000e\u007f"))
                .isEqualTo("a\\x0ab\\x0dc\\x09d\\x00e\\x7f");
    }

    @Test
    void escapesUnicodeLineSeparatorsAndBidiOverrides() {
        assertThat(ClientText.escape("a\u2028b\u202ec\u0085"))
                .isEqualTo("a\\u2028b\\u202ec\\u0085");
    }

    @Test
    void doublesBackslashesSoAnEscapeInTheInputCannotPassForOne() {
        assertThat(ClientText.escape("a\\x0ab")).isEqualTo("a\\\\x0ab");
    }

    @Test
    void cutsLongValuesAndSaysHowLongTheyWere() {
        String escaped = ClientText.escape("x".repeat(10_000));

        assertThat(escaped).startsWith("x".repeat(ClientText.MAX_CHARS) + "...(10000 chars)");
        assertThat(escaped).hasSize(ClientText.MAX_CHARS + "...(10000 chars)".length());
    }

    @Test
    void keepsPrintableNonAsciiText() {
        assertThat(ClientText.escape("Zürich-東京")).isEqualTo("Zürich-東京");
    }

    @Test
    void writesNullAsTheWordNull() {
        assertThat(ClientText.escape(null)).isEqualTo("null");
    }
}
