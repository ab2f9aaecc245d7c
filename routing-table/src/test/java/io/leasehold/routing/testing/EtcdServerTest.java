package io.leasehold.routing.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(EtcdExtension.class)
class EtcdServerTest {

    private static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }

    @Test
    void keepsDataAcrossRestart(EtcdServer etcd) throws Exception {
        try (Client client = Client.builder().endpoints(etcd.endpoint()).build()) {
            client.getKVClient().put(bytes("/k"), bytes("v")).get();
        }
        etcd.restart();
        try (Client client = Client.builder().endpoints(etcd.endpoint()).build()) {
            var kvs = client.getKVClient().get(bytes("/k")).get().getKvs();
            assertThat(kvs).hasSize(1);
            assertThat(kvs.get(0).getValue().toString(StandardCharsets.UTF_8)).isEqualTo("v");
        }
    }

    @Test
    void compactionAdvancesToCurrentRevision(EtcdServer etcd) throws Exception {
        try (Client client = Client.builder().endpoints(etcd.endpoint()).build()) {
            client.getKVClient().put(bytes("/a"), bytes("1")).get();
            client.getKVClient().put(bytes("/a"), bytes("2")).get();
        }
        long compacted = etcd.compact();
        assertThat(compacted).isEqualTo(etcd.currentRevision());
    }
}
