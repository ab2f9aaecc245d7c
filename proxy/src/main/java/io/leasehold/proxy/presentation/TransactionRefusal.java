package io.leasehold.proxy.presentation;

import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * Transactions are refused at the door. The ownership contract has no transaction coordinator:
 * a transactional id would get its producer epoch from a different broker each time, so two
 * instances sharing it would never fence each other. The refusal is the one the reference
 * broker (a broker without transactions) gives, TRANSACTIONAL_ID_AUTHORIZATION_FAILED, which
 * clients treat as fatal at once instead of retrying until their timeouts run out. The other
 * transaction APIs are never advertised, so a client that sends them gets UNSUPPORTED_VERSION.
 */
public final class TransactionRefusal {
    public static final Errors ERROR = Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
    static final String MESSAGE = "transactions are not supported through the Leasehold proxy: "
            + "the ownership contract has no transaction coordinator";

    private TransactionRefusal() {
    }

    /** True if {@code body} names a transactional id (InitProducerId, Produce). */
    public static boolean refuses(ApiMessage body) {
        if (body instanceof InitProducerIdRequestData init) {
            return init.transactionalId() != null;
        }
        if (body instanceof ProduceRequestData produce) {
            return produce.transactionalId() != null;
        }
        return false;
    }
}
