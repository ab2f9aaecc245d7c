package io.leasehold.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RecordIdentityTest {

    @Test
    void valueCarriesIdentityAndIsPaddedToSize() {
        RecordIdentity id = new RecordIdentity("kcat-1", 12345);

        byte[] value = id.encodeValue(40);

        assertThat(value).hasSize(40);
        assertThat(new String(value, StandardCharsets.UTF_8)).startsWith("lh1|kcat-1|12345|xxx");
        assertThat(RecordIdentity.parseValue(value)).contains(id);
    }

    @Test
    void valueNeverTruncatesTheIdentity() {
        RecordIdentity id = new RecordIdentity("p0", 7);

        assertThat(RecordIdentity.parseValue(id.encodeValue(1))).contains(id);
    }

    @Test
    void otherValuesAreNotAudited() {
        assertThat(RecordIdentity.parseValue(null)).isEmpty();
        assertThat(RecordIdentity.parseValue("hello world".getBytes(StandardCharsets.UTF_8))).isEmpty();
        assertThat(RecordIdentity.parseValue("lh1|p0|12x|".getBytes(StandardCharsets.UTF_8))).isEmpty();
        assertThat(RecordIdentity.parseValue("lh1||12|".getBytes(StandardCharsets.UTF_8))).isEmpty();
        assertThat(RecordIdentity.parseValue("lh1|p0|12".getBytes(StandardCharsets.UTF_8))).isEmpty();
    }

    @Test
    void rejectsProducerIdsThatCannotBeEmbedded() {
        assertThatThrownBy(() -> new RecordIdentity("a|b", 0)).hasMessageContaining("'a|b'");
        assertThatThrownBy(() -> new RecordIdentity("a b", 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RecordIdentity("a", -1)).hasMessageContaining("-1");
    }
}
