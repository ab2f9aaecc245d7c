package io.leasehold.broker.protocol;

import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * One decoded request.
 *
 * @param header     the request header
 * @param request    the parsed request; {@code request.data()} is the generated message
 * @param clientHost the peer's address, for group member descriptions
 */
public record KafkaRequest(RequestHeader header, AbstractRequest request, String clientHost) {

    public ApiKeys apiKey() {
        return header.apiKey();
    }

    public short version() {
        return header.apiVersion();
    }

    public String clientId() {
        return header.clientId() == null ? "" : header.clientId();
    }

    /** The generated message of the expected type. */
    public <T extends ApiMessage> T data(Class<T> type) {
        return type.cast(request.data());
    }
}
