package io.leasehold.proxy.protocol;

import java.util.Collection;
import java.util.function.Function;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * How many partitions one request may name, and how many topics one Metadata request may ask
 * for. The frame-size limit bounds what decoding one request costs; these bounds keep a request
 * within it from fanning out into tens of thousands of per-partition sub-requests and results.
 * A request over a bound is refused like an oversized frame: the connection is closed and the
 * log line names the client and the setting.
 */
public record RequestBounds(int maxPartitionsPerRequest, int maxTopicsPerMetadataRequest) {
    /** No bounds beyond what the frame size allows. */
    public static final RequestBounds NONE = new RequestBounds(Integer.MAX_VALUE, Integer.MAX_VALUE);

    /**
     * Checks a decoded request body.
     *
     * @throws MalformedRequestException with reason {@code too_many_partitions} or
     *                                   {@code too_many_topics} when a bound is exceeded
     */
    void check(ApiMessage body, String request) throws MalformedRequestException {
        if (body instanceof MetadataRequestData metadata && metadata.topics() != null
                && metadata.topics().size() > maxTopicsPerMetadataRequest) {
            throw new MalformedRequestException("too_many_topics", request + " asks for " + metadata.topics().size()
                    + " topics, over limits.maxTopicsPerMetadataRequest (" + maxTopicsPerMetadataRequest + ")", null);
        }
        long partitions = partitions(body);
        if (partitions > maxPartitionsPerRequest) {
            throw new MalformedRequestException("too_many_partitions", request + " names " + partitions
                    + " partitions, over limits.maxPartitionsPerRequest (" + maxPartitionsPerRequest + ")", null);
        }
    }

    /** Partitions a partition-keyed request names; 0 for other requests. */
    private static long partitions(ApiMessage body) {
        if (body instanceof ProduceRequestData produce) {
            return sum(produce.topicData(), topic -> topic.partitionData());
        }
        if (body instanceof FetchRequestData fetch) {
            return sum(fetch.topics(), topic -> topic.partitions())
                    + sum(fetch.forgottenTopicsData(), topic -> topic.partitions());
        }
        if (body instanceof ListOffsetsRequestData listOffsets) {
            return sum(listOffsets.topics(), topic -> topic.partitions());
        }
        if (body instanceof OffsetForLeaderEpochRequestData epochs) {
            return sum(epochs.topics(), topic -> topic.partitions());
        }
        return 0;
    }

    private static <T> long sum(Collection<T> topics, Function<T, Collection<?>> partitions) {
        long total = 0;
        if (topics != null) {
            for (T topic : topics) {
                total += partitions.apply(topic).size();
            }
        }
        return total;
    }
}
