package io.leasehold.proxy.request;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * The authenticated principal of one client connection, kept on its channel: set by SASL when
 * an exchange completes, read by whoever decides what the connection may do. A connection
 * nobody has authenticated is {@link KafkaPrincipal#ANONYMOUS}. A principal from a client
 * certificate is meant to be set here too, with SASL's winning over it as on a Kafka broker's
 * SASL_SSL listener.
 */
public final class ConnectionPrincipal {
    private static final AttributeKey<KafkaPrincipal> PRINCIPAL =
            AttributeKey.valueOf(ConnectionPrincipal.class, "principal");

    private ConnectionPrincipal() {
    }

    /** The principal {@code channel} has authenticated as, or {@link KafkaPrincipal#ANONYMOUS}. */
    public static KafkaPrincipal of(Channel channel) {
        KafkaPrincipal principal = channel.attr(PRINCIPAL).get();
        return principal == null ? KafkaPrincipal.ANONYMOUS : principal;
    }

    /** Records that {@code channel} has authenticated as {@code principal}. */
    public static void set(Channel channel, KafkaPrincipal principal) {
        channel.attr(PRINCIPAL).set(principal);
    }

    /** A {@code User:NAME} principal, the type SASL and certificate mapping produce. */
    public static KafkaPrincipal user(String name) {
        return new KafkaPrincipal(KafkaPrincipal.USER_TYPE, name);
    }
}
