package io.leasehold.proxy.routing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.junit.jupiter.api.Test;

class FindCoordinatorResponderTest {
    private final FindCoordinatorResponder responder =
            new FindCoordinatorResponder(new ProxyIdentity(0, "proxy.example", 9092));

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
}
