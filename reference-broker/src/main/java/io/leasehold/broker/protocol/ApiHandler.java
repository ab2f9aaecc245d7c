package io.leasehold.broker.protocol;

import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.ApiMessage;

/** Serves one API. */
@FunctionalInterface
public interface ApiHandler {

    /**
     * @return the response message, or a future of null when the request gets no response
     *         (Produce with acks=0); a failed future becomes the API's generic error response
     */
    CompletableFuture<ApiMessage> handle(KafkaRequest request);
}
