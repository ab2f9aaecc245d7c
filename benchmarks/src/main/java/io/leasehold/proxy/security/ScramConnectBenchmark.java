package io.leasehold.proxy.security;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import java.util.concurrent.TimeUnit;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.NameCallback;
import javax.security.auth.callback.PasswordCallback;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.sasl.SaslException;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.apache.kafka.common.security.scram.internals.ScramSaslClient;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The SCRAM exchange a SASL client goes through at connect: kafka-clients' own SCRAM client
 * against the proxy's {@link ScramExchange}, both messages each way, with credentials of
 * 4096 iterations (what a password in the users file turns into). The client's key derivation
 * (PBKDF2 over the password) is inside the measurement, as it is in a real connect;
 * {@code clientKeyDerivation} measures that part alone.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class ScramConnectBenchmark {
    private static final String USER = "alice";
    private static final String PASSWORD = "alice-secret";
    private static final byte[] SALT = "a-benchmark-salt".getBytes(StandardCharsets.US_ASCII);

    @Param({"SCRAM-SHA-256", "SCRAM-SHA-512"})
    public String mechanism;

    private UserDirectory users;
    private ScramMechanism scram;
    private ScramFormatter formatter;

    @Setup
    public void loadUsers() throws Exception {
        users = new UsersFileParser().parse("users:\n  - {name: " + USER + ", password: \"" + PASSWORD + "\"}\n",
                "benchmark");
        scram = ScramMechanism.forMechanismName(mechanism);
        formatter = new ScramFormatter(scram);
    }

    private ScramSaslClient client() throws NoSuchAlgorithmException {
        return new ScramSaslClient(scram, callbacks -> {
            for (Callback callback : callbacks) {
                if (callback instanceof NameCallback name) {
                    name.setName(USER);
                } else if (callback instanceof PasswordCallback password) {
                    password.setPassword(PASSWORD.toCharArray());
                } else {
                    throw new UnsupportedCallbackException(callback);
                }
            }
        });
    }

    /** A whole exchange, client and proxy: what one connection's authentication costs in CPU. */
    @Benchmark
    public boolean wholeExchange() throws SaslException, AuthenticationFailure, NoSuchAlgorithmException {
        ScramSaslClient client = client();
        ScramExchange server = new ScramExchange(scram, users);
        byte[] first = server.evaluate(client.evaluateChallenge(new byte[0]));
        byte[] last = server.evaluate(client.evaluateChallenge(first));
        client.evaluateChallenge(last);
        return client.isComplete() && server.complete();
    }

    /**
     * The client's own share: deriving the salted password (PBKDF2, 4096 iterations), which it
     * does once per exchange. The proxy's share is the whole exchange minus this.
     */
    @Benchmark
    public byte[] clientKeyDerivation() throws InvalidKeyException {
        return formatter.saltedPassword(PASSWORD, SALT, UsersFileParser.PASSWORD_ITERATIONS);
    }
}
