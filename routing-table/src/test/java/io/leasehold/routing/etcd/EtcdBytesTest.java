package io.leasehold.routing.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcd.jetcd.ByteSequence;
import org.junit.jupiter.api.Test;

class EtcdBytesTest {

    @Test
    void prefixEndIsTheFirstKeyPastThePrefix() {
        assertThat(EtcdBytes.text(EtcdBytes.prefixEnd("/kafscale/brokers/"))).isEqualTo("/kafscale/brokers0");
        assertThat(EtcdBytes.prefixEnd("a\u00ff")).isEqualTo(ByteSequence.from(new byte[] {'a', (byte) 0xc3, (byte) 0xc0}));
        assertThat(EtcdBytes.prefixEnd("")).isEqualTo(ByteSequence.from(new byte[] {0}));
    }

    @Test
    void textRoundTripsUtf8() {
        assertThat(EtcdBytes.text(EtcdBytes.of("/group-leases/grüppe"))).isEqualTo("/group-leases/grüppe");
    }
}
