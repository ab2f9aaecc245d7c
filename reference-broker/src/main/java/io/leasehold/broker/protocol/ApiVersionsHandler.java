package io.leasehold.broker.protocol;

import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/** ApiVersions: exactly the APIs and versions in the broker's table. */
public final class ApiVersionsHandler implements ApiHandler {

    private final SupportedApis apis;

    public ApiVersionsHandler(SupportedApis apis) {
        this.apis = apis;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(KafkaRequest request) {
        return CompletableFuture.completedFuture(apis.apiVersionsResponse(Errors.NONE.code()));
    }
}
