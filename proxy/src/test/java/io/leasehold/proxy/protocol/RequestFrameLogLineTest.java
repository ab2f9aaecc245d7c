package io.leasehold.proxy.protocol;

import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import io.netty.buffer.ByteBufAllocator;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RequestFrameLogLineTest {

    @Test
    void aClientIdWithANewlineCannotForgeALogLine() throws Exception {
        String forging = "app\n2026-12-01 12:00:00 [main] ERROR io.leasehold.proxy.Main - forged";
        RequestFrame request = RequestFrame.parse(KafkaMessages.encodeRequest(ByteBufAllocator.DEFAULT,
                ApiKeys.METADATA, (short) 12, forging, new MetadataRequestData().setTopics(null)));
        try {
            String described = request.toString();

            assertThat(described).doesNotContain("\n").doesNotContain("\r");
            assertThat(described).contains("clientId=app\\x0a2026-12-01 12:00:00");
        } finally {
            request.release();
        }
    }
}
