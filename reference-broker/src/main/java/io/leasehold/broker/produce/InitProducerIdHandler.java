package io.leasehold.broker.produce;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.PutOption;
import io.leasehold.broker.etcd.BrokerKeys;
import io.leasehold.broker.etcd.Etcd;
import io.leasehold.broker.protocol.ApiHandler;
import io.leasehold.broker.protocol.KafkaRequest;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * InitProducerId for idempotent (not transactional) producers: a fresh producer id from a
 * cluster-wide counter in etcd, or, when a producer asks to bump its epoch, the same id with the
 * next epoch. Sequence numbers are then checked per partition by the partition writers.
 */
public final class InitProducerIdHandler implements ApiHandler {

    private static final Logger LOG = LoggerFactory.getLogger(InitProducerIdHandler.class);
    /** Bounded so a client hears a retriable error while etcd is unreachable, not a request timeout. */
    private static final long ALLOCATION_TIMEOUT_SECONDS = 5;

    private final Etcd etcd;
    private final BrokerKeys keys;

    public InitProducerIdHandler(Etcd etcd, BrokerKeys keys) {
        this.etcd = etcd;
        this.keys = keys;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(KafkaRequest request) {
        InitProducerIdRequestData data = request.data(InitProducerIdRequestData.class);
        if (data.transactionalId() != null) {
            return CompletableFuture.completedFuture(error(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED));
        }
        if (data.producerId() >= 0 && data.producerEpoch() >= 0 && data.producerEpoch() < Short.MAX_VALUE - 1) {
            return CompletableFuture.completedFuture(new InitProducerIdResponseData().setErrorCode(Errors.NONE.code())
                    .setProducerId(data.producerId()).setProducerEpoch((short) (data.producerEpoch() + 1)));
        }
        return allocate().orTimeout(ALLOCATION_TIMEOUT_SECONDS, TimeUnit.SECONDS)
                .<ApiMessage>thenApply(id -> new InitProducerIdResponseData().setErrorCode(Errors.NONE.code())
                        .setProducerId(id).setProducerEpoch((short) 0))
                .exceptionally(failure -> {
                    // A retriable error: the Java client treats anything else here as fatal for the producer.
                    LOG.warn("allocating a producer id in etcd failed; answering COORDINATOR_NOT_AVAILABLE", failure);
                    return error(Errors.COORDINATOR_NOT_AVAILABLE);
                });
    }

    /** Increments the counter with compare-and-swap on its mod revision, retrying on contention. */
    private CompletableFuture<Long> allocate() {
        ByteSequence key = Etcd.bytes(keys.producerIdCounterKey());
        return etcd.kv().get(key).thenCompose(current -> {
            long revision = 0;
            long last = -1;
            if (!current.getKvs().isEmpty()) {
                KeyValue kv = current.getKvs().get(0);
                revision = kv.getModRevision();
                last = Long.parseLong(Etcd.text(kv.getValue()));
            }
            long next = last + 1;
            Cmp unchanged = revision == 0 ? new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(0))
                    : new Cmp(key, Cmp.Op.EQUAL, CmpTarget.modRevision(revision));
            return etcd.kv().txn().If(unchanged)
                    .Then(Op.put(key, Etcd.bytes(Long.toString(next)), PutOption.DEFAULT))
                    .commit()
                    .thenCompose(result -> result.isSucceeded() ? CompletableFuture.completedFuture(next) : allocate());
        });
    }

    private static InitProducerIdResponseData error(Errors error) {
        return new InitProducerIdResponseData().setErrorCode(error.code()).setProducerId(-1).setProducerEpoch((short) -1);
    }
}
