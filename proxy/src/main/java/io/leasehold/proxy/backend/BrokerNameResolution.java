package io.leasehold.proxy.backend;

import io.leasehold.proxy.transport.NettyTransport;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.DatagramChannel;
import io.netty.resolver.AddressResolver;
import io.netty.resolver.AddressResolverGroup;
import io.netty.resolver.NameResolver;
import io.netty.resolver.SimpleNameResolver;
import io.netty.resolver.dns.DnsAddressResolverGroup;
import io.netty.resolver.dns.DnsNameResolverBuilder;
import io.netty.resolver.dns.DnsServerAddressStreamProvider;
import io.netty.resolver.dns.DnsServerAddressStreamProviders;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Turns broker host names into addresses without blocking an event loop: Netty's asynchronous
 * DNS resolver, one per event loop, sending its queries on a channel of that loop's transport.
 * Names in the hosts file ({@code /etc/hosts}) are answered from it without a query; other names
 * go to the name servers, search domains and {@code ndots} of {@code /etc/resolv.conf}. Answers
 * are cached for their own TTL, kept within the configured {@link Ttls} bounds; a failed lookup
 * is remembered for the negative TTL, and each failed lookup is reported.
 */
public final class BrokerNameResolution implements AutoCloseable {

    /**
     * Cache bounds, whole seconds: {@code min} is the floor on a cached answer's life (so TTL-0
     * records do not cost a query per connection), {@code max} the ceiling (a broker that moved to
     * a new address is found within it), {@code negative} how long a name that did not resolve is
     * answered as unresolvable without asking again.
     */
    public record Ttls(Duration min, Duration max, Duration negative) {
        /** The bounds unless configured otherwise: 1 s, 30 s and 2 s. */
        public static final Ttls DEFAULTS = new Ttls(Duration.ofSeconds(1), Duration.ofSeconds(30),
                Duration.ofSeconds(2));
    }

    private final DnsServerAddressStreamProvider nameServers;
    private final Duration queryTimeout;
    private final Ttls ttls;
    private final Runnable lookupFailed;
    private final Map<Class<? extends DatagramChannel>, DnsAddressResolverGroup> groups = new ConcurrentHashMap<>();

    /** Resolution with the default cache bounds that reports failed lookups to nobody. */
    public BrokerNameResolution(DnsServerAddressStreamProvider nameServers, Duration queryTimeout) {
        this(nameServers, queryTimeout, Ttls.DEFAULTS, () -> { });
    }

    /**
     * @param nameServers  where queries go
     * @param queryTimeout how long one query may wait for its answer
     * @param ttls         how long answers and failures are cached
     * @param lookupFailed called (on an event loop) for every name that did not resolve
     */
    public BrokerNameResolution(DnsServerAddressStreamProvider nameServers, Duration queryTimeout, Ttls ttls,
                                Runnable lookupFailed) {
        this.nameServers = nameServers;
        this.queryTimeout = queryTimeout;
        this.ttls = ttls;
        this.lookupFailed = lookupFailed;
    }

    /** Resolution with this host's own name servers ({@code /etc/resolv.conf}) and the default cache bounds. */
    public static BrokerNameResolution ofThisHost(Duration queryTimeout) {
        return ofThisHost(queryTimeout, Ttls.DEFAULTS, () -> { });
    }

    /** Resolution with this host's own name servers ({@code /etc/resolv.conf}). */
    public static BrokerNameResolution ofThisHost(Duration queryTimeout, Ttls ttls, Runnable lookupFailed) {
        return new BrokerNameResolution(DnsServerAddressStreamProviders.platformDefault(), queryTimeout, ttls,
                lookupFailed);
    }

    /** The resolvers for connections made on {@code loop}. */
    AddressResolverGroup<InetSocketAddress> on(EventLoop loop) {
        return groups.computeIfAbsent(NettyTransport.datagramChannelFor(loop), datagram -> new FailureReportingGroup(
                new DnsNameResolverBuilder()
                        .datagramChannelType(datagram)
                        .socketChannelType(NettyTransport.channelFor(loop))
                        .nameServerProvider(nameServers)
                        .queryTimeoutMillis(queryTimeout.toMillis())
                        .ttl((int) ttls.min().toSeconds(), (int) ttls.max().toSeconds())
                        .negativeTtl((int) ttls.negative().toSeconds()), lookupFailed));
    }

    /** Closes every resolver (and its sockets); call after the event loops stopped connecting. */
    @Override
    public void close() {
        groups.values().forEach(AddressResolverGroup::close);
    }

    /** Netty's DNS resolvers, each wrapped to report the names it could not resolve. */
    private static final class FailureReportingGroup extends DnsAddressResolverGroup {
        private final Runnable lookupFailed;

        FailureReportingGroup(DnsNameResolverBuilder builder, Runnable lookupFailed) {
            super(builder);
            this.lookupFailed = lookupFailed;
        }

        @Override
        protected AddressResolver<InetSocketAddress> newAddressResolver(EventLoop loop, NameResolver<InetAddress> names)
                throws Exception {
            return super.newAddressResolver(loop, new FailureReportingResolver(loop, names, lookupFailed));
        }
    }

    /** Resolves with {@code names} and calls {@code lookupFailed} whenever a lookup fails. */
    private static final class FailureReportingResolver extends SimpleNameResolver<InetAddress> {
        private final NameResolver<InetAddress> names;
        private final Runnable lookupFailed;

        FailureReportingResolver(EventLoop loop, NameResolver<InetAddress> names, Runnable lookupFailed) {
            super(loop);
            this.names = names;
            this.lookupFailed = lookupFailed;
        }

        @Override
        protected void doResolve(String host, Promise<InetAddress> promise) {
            relay(names.resolve(host), promise);
        }

        @Override
        protected void doResolveAll(String host, Promise<List<InetAddress>> promise) {
            relay(names.resolveAll(host), promise);
        }

        private <T> void relay(Future<T> lookup, Promise<T> promise) {
            lookup.addListener((Future<T> done) -> {
                if (done.isSuccess()) {
                    promise.trySuccess(done.getNow());
                } else {
                    lookupFailed.run();
                    promise.tryFailure(done.cause());
                }
            });
        }

        @Override
        public void close() {
            names.close();
        }
    }
}
