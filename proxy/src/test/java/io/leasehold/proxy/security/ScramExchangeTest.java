package io.leasehold.proxy.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.NameCallback;
import javax.security.auth.callback.PasswordCallback;
import javax.security.auth.callback.UnsupportedCallbackException;
import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.ScramExtensionsCallback;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.apache.kafka.common.security.scram.internals.ScramMessages.ClientFinalMessage;
import org.apache.kafka.common.security.scram.internals.ScramMessages.ClientFirstMessage;
import org.apache.kafka.common.security.scram.internals.ScramMessages.ServerFirstMessage;
import org.apache.kafka.common.security.scram.internals.ScramSaslClient;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The SCRAM server against kafka-clients' own SCRAM client (which checks the server's
 * signature), and against the client-final message old librdkafka sends.
 */
class ScramExchangeTest {

    private static UserDirectory users(ScramMechanism mechanism) {
        ScramCredential credential = UsersFileParser.derive(mechanism, "s3cret");
        return new UserDirectory(Map.of("alice", new UserCredentials("alice", null, Map.of(mechanism, credential))));
    }

    private static ScramSaslClient client(ScramMechanism mechanism, String user, String password) throws Exception {
        return new ScramSaslClient(mechanism, callbacks -> {
            for (Callback callback : callbacks) {
                if (callback instanceof NameCallback name) {
                    name.setName(user);
                } else if (callback instanceof PasswordCallback secret) {
                    secret.setPassword(password.toCharArray());
                } else if (!(callback instanceof ScramExtensionsCallback)) {
                    throw new UnsupportedCallbackException(callback);
                }
            }
        });
    }

    @ParameterizedTest
    @EnumSource(ScramMechanism.class)
    void kafkaClientsScramClientAuthenticatesAndAcceptsTheServerSignature(ScramMechanism mechanism) throws Exception {
        ScramExchange server = new ScramExchange(mechanism, users(mechanism));
        ScramSaslClient client = client(mechanism, "alice", "s3cret");

        byte[] serverFirst = server.evaluate(client.evaluateChallenge(new byte[0]));
        byte[] serverFinal = server.evaluate(client.evaluateChallenge(serverFirst));
        client.evaluateChallenge(serverFinal);

        assertThat(server.complete()).isTrue();
        assertThat(server.userName()).isEqualTo("alice");
        assertThat(client.isComplete()).as("the client verified the server signature").isTrue();
    }

    @ParameterizedTest
    @EnumSource(ScramMechanism.class)
    void wrongPasswordAndUnknownUserAreRefusedWithKafkasWording(ScramMechanism mechanism) throws Exception {
        ScramExchange server = new ScramExchange(mechanism, users(mechanism));
        ScramSaslClient client = client(mechanism, "alice", "guess");
        byte[] serverFirst = server.evaluate(client.evaluateChallenge(new byte[0]));
        byte[] clientFinal = client.evaluateChallenge(serverFirst);

        assertThatThrownBy(() -> server.evaluate(clientFinal)).isInstanceOfSatisfying(AuthenticationFailure.class,
                failure -> assertThat(failure.reason()).isEqualTo("bad_credentials"))
                .hasMessage("Authentication failed during authentication due to invalid credentials with SASL "
                        + "mechanism " + mechanism.mechanismName());
        assertThat(server.complete()).isFalse();

        ScramExchange other = new ScramExchange(mechanism, users(mechanism));
        byte[] mallory = client(mechanism, "mallory", "s3cret").evaluateChallenge(new byte[0]);
        assertThatThrownBy(() -> other.evaluate(mallory)).isInstanceOfSatisfying(AuthenticationFailure.class,
                failure -> assertThat(failure.reason()).isEqualTo("unknown_user"));
    }

    /**
     * librdkafka before 2.6.1 puts its client nonce once more in front of the combined nonce and
     * signs the message as sent: accepted, while any other nonce is still refused.
     */
    @ParameterizedTest
    @EnumSource(ScramMechanism.class)
    void oldLibrdkafkaNonceIsAcceptedButOnlyInThatExactForm(ScramMechanism mechanism) throws Exception {
        for (String form : new String[] {"legacy", "other"}) {
            ScramFormatter formatter = new ScramFormatter(mechanism);
            ScramExchange server = new ScramExchange(mechanism, users(mechanism));
            ClientFirstMessage first = new ClientFirstMessage("alice", "clientnonce", Map.of());
            ServerFirstMessage serverFirst = new ServerFirstMessage(server.evaluate(first.toBytes()));
            String nonce = (form.equals("legacy") ? first.nonce() : "x") + serverFirst.nonce();
            ClientFinalMessage last = new ClientFinalMessage("n,,".getBytes(StandardCharsets.UTF_8), nonce);
            byte[] salted = formatter.saltedPassword("s3cret", serverFirst.salt(), serverFirst.iterations());
            last.proof(formatter.clientProof(salted, first, serverFirst, last));

            if (form.equals("legacy")) {
                server.evaluate(last.toBytes());
                assertThat(server.complete()).isTrue();
            } else {
                assertThatThrownBy(() -> server.evaluate(last.toBytes())).isInstanceOf(AuthenticationFailure.class)
                        .hasMessageContaining("Invalid client nonce");
            }
        }
    }

    @ParameterizedTest
    @EnumSource(ScramMechanism.class)
    void tokensAfterTheExchangeEndedAndGarbageAreRefused(ScramMechanism mechanism) throws Exception {
        ScramExchange garbage = new ScramExchange(mechanism, users(mechanism));
        assertThatThrownBy(() -> garbage.evaluate("not scram".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOfSatisfying(AuthenticationFailure.class,
                        failure -> assertThat(failure.reason()).isEqualTo("bad_message"));
        assertThatThrownBy(() -> garbage.evaluate(new byte[0])).isInstanceOfSatisfying(AuthenticationFailure.class,
                failure -> assertThat(failure.reason()).isEqualTo("wrong_order"));
    }
}
