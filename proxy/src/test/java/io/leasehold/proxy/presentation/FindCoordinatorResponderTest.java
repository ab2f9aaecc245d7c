package io.leasehold.proxy.presentation;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FindCoordinatorRequest.CoordinatorType;
import org.junit.jupiter.api.Test;

class FindCoordinatorResponderTest {
    private final FindCoordinatorResponder responder =
            new FindCoordinatorResponder(ClusterPresentation.singleNode(new ProxyIdentity(0, "proxy.example", 9092)));

    @Test
    void singleKeyVersionsNameTheProxy() {
        FindCoordinatorResponseData answer = responder.answer(new FindCoordinatorRequestData().setKey("g1"), (short) 3);
        assertThat(answer.host()).isEqualTo("proxy.example");
        assertThat(answer.port()).isEqualTo(9092);
        assertThat(answer.nodeId()).isZero();
        assertThat(answer.errorCode()).isZero();
    }

    @Test
    void batchedVersionsNameTheProxyForEveryKey() {
        FindCoordinatorResponseData answer = responder.answer(
                new FindCoordinatorRequestData().setCoordinatorKeys(List.of("g1", "g2")), (short) 4);
        assertThat(answer.coordinators()).extracting(FindCoordinatorResponseData.Coordinator::key)
                .containsExactly("g1", "g2");
        assertThat(answer.coordinators()).allSatisfy(c -> {
            assertThat(c.host()).isEqualTo("proxy.example");
            assertThat(c.port()).isEqualTo(9092);
            assertThat(c.errorCode()).isZero();
        });
    }

    @Test
    void transactionCoordinatorsAreRefusedWithTheErrorOfABrokerWithoutTransactions() {
        FindCoordinatorResponseData single = responder.answer(new FindCoordinatorRequestData().setKey("payments-tx")
                .setKeyType(CoordinatorType.TRANSACTION.id()), (short) 3);
        FindCoordinatorResponseData batched = responder.answer(new FindCoordinatorRequestData()
                .setCoordinatorKeys(List.of("payments-tx")).setKeyType(CoordinatorType.TRANSACTION.id()), (short) 4);

        assertThat(single.errorCode()).isEqualTo(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code());
        assertThat(single.errorMessage()).contains("transactions are not supported through the Leasehold proxy");
        assertThat(single.nodeId()).isEqualTo(-1);
        assertThat(batched.coordinators()).singleElement().satisfies(c -> {
            assertThat(c.key()).isEqualTo("payments-tx");
            assertThat(c.errorCode()).isEqualTo(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code());
        });
    }

    @Test
    void shareGroupCoordinatorsAreRefusedAsAnInvalidRequest() {
        FindCoordinatorResponseData answer = responder.answer(new FindCoordinatorRequestData()
                .setCoordinatorKeys(List.of("share")).setKeyType(CoordinatorType.SHARE.id()), (short) 6);

        assertThat(answer.coordinators()).singleElement()
                .satisfies(c -> assertThat(c.errorCode()).isEqualTo(Errors.INVALID_REQUEST.code()));
    }
}
