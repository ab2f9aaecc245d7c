package io.leasehold.proxy.backend;

import io.leasehold.proxy.transport.NettyTransport;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.DatagramChannel;
import io.netty.resolver.AddressResolverGroup;
import io.netty.resolver.dns.DnsAddressResolverGroup;
import io.netty.resolver.dns.DnsNameResolverBuilder;
import io.netty.resolver.dns.DnsServerAddressStreamProvider;
import io.netty.resolver.dns.DnsServerAddressStreamProviders;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Turns broker host names into addresses without blocking an event loop: Netty's asynchronous
 * DNS resolver, one per event loop, sending its queries on a channel of that loop's transport.
 * Names in the hosts file ({@code /etc/hosts}) are answered from it without a query; other names
 * go to the name servers, search domains and {@code ndots} of {@code /etc/resolv.conf}. Answers
 * are cached for their own TTL, kept within {@link #MIN_TTL}..{@link #MAX_TTL}; a failed lookup
 * is remembered for {@link #NEGATIVE_TTL}.
 */
public final class BrokerNameResolution implements AutoCloseable {
    /** Floor on a cached answer's life, so TTL-0 records do not cost a query per connection. */
    static final Duration MIN_TTL = Duration.ofSeconds(1);
    /** Ceiling on a cached answer's life: a broker that moved to a new address is found within it. */
    static final Duration MAX_TTL = Duration.ofSeconds(30);
    /** How long a name that did not resolve is answered as unresolvable without asking again. */
    static final Duration NEGATIVE_TTL = Duration.ofSeconds(2);

    private final DnsServerAddressStreamProvider nameServers;
    private final Duration queryTimeout;
    private final Map<Class<? extends DatagramChannel>, DnsAddressResolverGroup> groups = new ConcurrentHashMap<>();

    /**
     * @param nameServers  where queries go
     * @param queryTimeout how long one query may wait for its answer
     */
    public BrokerNameResolution(DnsServerAddressStreamProvider nameServers, Duration queryTimeout) {
        this.nameServers = nameServers;
        this.queryTimeout = queryTimeout;
    }

    /** Resolution with this host's own name servers ({@code /etc/resolv.conf}). */
    public static BrokerNameResolution ofThisHost(Duration queryTimeout) {
        return new BrokerNameResolution(DnsServerAddressStreamProviders.platformDefault(), queryTimeout);
    }

    /** The resolvers for connections made on {@code loop}. */
    AddressResolverGroup<InetSocketAddress> on(EventLoop loop) {
        return groups.computeIfAbsent(NettyTransport.datagramChannelFor(loop), datagram -> new DnsAddressResolverGroup(
                new DnsNameResolverBuilder()
                        .datagramChannelType(datagram)
                        .socketChannelType(NettyTransport.channelFor(loop))
                        .nameServerProvider(nameServers)
                        .queryTimeoutMillis(queryTimeout.toMillis())
                        .ttl((int) MIN_TTL.toSeconds(), (int) MAX_TTL.toSeconds())
                        .negativeTtl((int) NEGATIVE_TTL.toSeconds())));
    }

    /** Closes every resolver (and its sockets); call after the event loops stopped connecting. */
    @Override
    public void close() {
        groups.values().forEach(AddressResolverGroup::close);
    }
}
