package io.leasehold.proxy.testing;

import io.leasehold.proxy.backend.BackendSession;
import io.leasehold.routing.snapshot.BrokerAddress;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * The in-test brokers of one routing unit test and the backend session that reaches them, on
 * their own event loops; {@link #close()} stops all of it.
 */
public final class ScriptedBackends implements AutoCloseable {
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
    private final BackendSession session;
    private final List<ScriptedBroker> servers = new ArrayList<>();

    /** Backend requests time out after 5 s. */
    public ScriptedBackends() {
        this(Duration.ofSeconds(5));
    }

    public ScriptedBackends(Duration requestTimeout) {
        session = TestClients.openSession(group, requestTimeout);
    }

    /** A broker with id {@code id} answering with {@code script}. */
    public BrokerAddress broker(int id, Function<ApiMessage, ApiMessage> script) throws InterruptedException {
        return new BrokerAddress(id, "127.0.0.1", scripted(script).port(), null);
    }

    /** A broker answering with {@code script}, for tests that count what it was asked. */
    public ScriptedBroker scripted(Function<ApiMessage, ApiMessage> script) throws InterruptedException {
        ScriptedBroker server = new ScriptedBroker(group, script);
        servers.add(server);
        return server;
    }

    public BackendSession session() {
        return session;
    }

    @Override
    public void close() {
        session.close();
        servers.forEach(ScriptedBroker::close);
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
