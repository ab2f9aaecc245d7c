package io.leasehold.proxy.security;

import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import javax.security.sasl.SaslException;
import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.apache.kafka.common.security.scram.internals.ScramMessages.ClientFinalMessage;
import org.apache.kafka.common.security.scram.internals.ScramMessages.ClientFirstMessage;
import org.apache.kafka.common.security.scram.internals.ScramMessages.ServerFinalMessage;
import org.apache.kafka.common.security.scram.internals.ScramMessages.ServerFirstMessage;

/**
 * The server side of SCRAM-SHA-256/512 (RFC 5802), built from kafka-clients' SCRAM message
 * classes and {@link ScramFormatter} (all hashing and HMACs are theirs and the JDK's).
 *
 * <p>It is not kafka-clients' {@code ScramSaslServer} because of one deliberate difference:
 * librdkafka before 2.6.1 (kcat on Debian bookworm links 2.0.2) sends its client nonce once more
 * in front of the combined nonce in the client-final message and signs that message as sent.
 * Kafka 4 refuses it; this exchange accepts exactly the combined nonce, or the client nonce
 * followed by exactly the combined nonce, so the server's nonce must still be echoed in full.
 */
final class ScramExchange implements SaslExchange {
    private static final String INVALID = "Authentication failed during authentication due to invalid credentials "
            + "with SASL mechanism ";

    private enum State { FIRST, FINAL, DONE, FAILED }

    private final ScramMechanism mechanism;
    private final UserDirectory users;
    private final ScramFormatter formatter;
    private State state = State.FIRST;
    private ClientFirstMessage clientFirst;
    private ServerFirstMessage serverFirst;
    private ScramCredential credential;
    private String userName;

    ScramExchange(ScramMechanism mechanism, UserDirectory users) {
        this.mechanism = mechanism;
        this.users = users;
        try {
            this.formatter = new ScramFormatter(mechanism);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK lacks " + mechanism.hashAlgorithm(), e);
        }
    }

    @Override
    public byte[] evaluate(byte[] clientToken) throws AuthenticationFailure {
        State current = state;
        state = State.FAILED;
        try {
            byte[] answer = switch (current) {
                case FIRST -> first(clientToken);
                case FINAL -> last(clientToken);
                default -> throw new AuthenticationFailure("wrong_order", "Unexpected SASL token: the "
                        + mechanism.mechanismName() + " exchange has already ended");
            };
            state = current == State.FIRST ? State.FINAL : State.DONE;
            return answer;
        } catch (SaslException e) {
            throw new AuthenticationFailure("bad_message", "Invalid " + mechanism.mechanismName() + " message: "
                    + e.getMessage());
        } catch (InvalidKeyException e) {
            throw new AuthenticationFailure("bad_credentials", INVALID + mechanism.mechanismName());
        }
    }

    private byte[] first(byte[] token) throws SaslException, AuthenticationFailure {
        clientFirst = new ClientFirstMessage(token);
        if (!clientFirst.extensions().map().isEmpty()) {
            // "tokenauth" would ask for delegation tokens, which the proxy does not issue.
            throw new AuthenticationFailure("bad_message", "SCRAM extensions are not supported: "
                    + clientFirst.extensions().map().keySet());
        }
        String name = ScramFormatter.username(clientFirst.saslName());
        String authorizationId = clientFirst.authorizationId();
        if (!authorizationId.isEmpty() && !authorizationId.equals(name)) {
            throw new AuthenticationFailure("bad_message", "Authentication failed: client requested an "
                    + "authorization id that is different from the user name");
        }
        credential = users.find(name).map(user -> user.scram().get(mechanism)).orElse(null);
        if (credential == null) {
            throw new AuthenticationFailure("unknown_user", INVALID + mechanism.mechanismName());
        }
        userName = name;
        serverFirst = new ServerFirstMessage(clientFirst.nonce(), formatter.secureRandomString(), credential.salt(),
                credential.iterations());
        return serverFirst.toBytes();
    }

    private byte[] last(byte[] token) throws SaslException, InvalidKeyException, AuthenticationFailure {
        ClientFinalMessage clientFinal = new ClientFinalMessage(token);
        String nonce = clientFinal.nonce();
        String combined = serverFirst.nonce();
        if (!nonce.equals(combined) && !nonce.equals(clientFirst.nonce() + combined)) {
            throw new AuthenticationFailure("bad_message", "Invalid client nonce in the final client message.");
        }
        byte[] clientSignature = formatter.clientSignature(credential.storedKey(), clientFirst, serverFirst,
                clientFinal);
        byte[] computedStoredKey = formatter.storedKey(clientSignature, clientFinal.proof());
        if (!MessageDigest.isEqual(computedStoredKey, credential.storedKey())) {
            throw new AuthenticationFailure("bad_credentials", INVALID + mechanism.mechanismName());
        }
        byte[] serverSignature = formatter.serverSignature(credential.serverKey(), clientFirst, serverFirst,
                clientFinal);
        return new ServerFinalMessage(null, serverSignature).toBytes();
    }

    @Override
    public boolean complete() {
        return state == State.DONE;
    }

    @Override
    public String userName() {
        return userName;
    }
}
