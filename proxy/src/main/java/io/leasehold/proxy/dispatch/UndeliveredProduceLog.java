package io.leasehold.proxy.dispatch;

import io.leasehold.proxy.logging.ClientText;
import io.leasehold.proxy.logging.WarningRateLimiter;
import io.leasehold.proxy.request.ClientContext;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;

/**
 * Warns about acks=0 records no owner took, which the client never hears of. Topic names come
 * from the client, so they are escaped; one line covers a whole request (naming at most
 * {@link #MAX_LISTED} partitions), and lines are rate-limited per client address, so a client
 * producing to thousands of unowned partitions cannot flood the log.
 */
final class UndeliveredProduceLog {
    /** Partitions named in one line; the rest are only counted. */
    static final int MAX_LISTED = 10;

    private final Logger log;
    private final WarningRateLimiter warnings;

    UndeliveredProduceLog(Logger log, WarningRateLimiter warnings) {
        this.log = log;
        this.warnings = warnings;
    }

    /** The whole request failed before any answer. */
    void failed(ClientContext client, Throwable error) {
        warnings.warn(log, "acks=0 undelivered", address(client), "acks=0 produce from {} could not be delivered: {}",
                client.remote(), ClientText.escape(error.toString()));
    }

    /** Logs the partitions of {@code answer} that carry an error, if any. */
    void undelivered(ClientContext client, ProduceResponseData answer) {
        List<String> listed = new ArrayList<>();
        int count = 0;
        for (ProduceResponseData.TopicProduceResponse topic : answer.responses()) {
            for (ProduceResponseData.PartitionProduceResponse partition : topic.partitionResponses()) {
                if (partition.errorCode() == Errors.NONE.code()) {
                    continue;
                }
                count++;
                if (listed.size() < MAX_LISTED) {
                    listed.add(ClientText.escape(topic.name()) + "-" + partition.index() + " ("
                            + Errors.forCode(partition.errorCode()) + ")");
                }
            }
        }
        if (count == 0) {
            return;
        }
        String more = count > listed.size() ? " and " + (count - listed.size()) + " more" : "";
        warnings.warn(log, "acks=0 undelivered", address(client),
                "acks=0 produce from {} could not be delivered to {} partition(s): {}{}", client.remote(), count,
                String.join(", ", listed), more);
    }

    private static SocketAddress address(ClientContext client) {
        return client.channel() == null ? null : client.channel().remoteAddress();
    }
}
