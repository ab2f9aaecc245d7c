package io.leasehold.routing.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A loopback TCP relay in front of a server, for fault tests: a client connected through it can
 * be cut off ({@link #cut()}: open connections are reset and new ones refused) or silently
 * stalled ({@link #stall()}) while the server keeps running for everyone else, then let back in
 * with {@link #restore()}.
 */
public final class TcpRelay implements AutoCloseable {

    private final ServerSocket listener;
    private final int targetPort;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile boolean cut;
    private volatile boolean stalled;
    private volatile boolean closed;

    private TcpRelay(ServerSocket listener, int targetPort) {
        this.listener = listener;
        this.targetPort = targetPort;
    }

    /** Starts relaying a free loopback port to {@code 127.0.0.1:targetPort}. */
    public static TcpRelay start(int targetPort) {
        try {
            ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            TcpRelay relay = new TcpRelay(listener, targetPort);
            Thread acceptor = new Thread(relay::acceptLoop, "tcp-relay-" + listener.getLocalPort());
            acceptor.setDaemon(true);
            acceptor.start();
            return relay;
        } catch (IOException e) {
            throw new UncheckedIOException("could not open a relay port", e);
        }
    }

    /** Relays to the port of an etcd endpoint such as {@code http://127.0.0.1:2379}. */
    public static TcpRelay to(EtcdServer etcd) {
        String endpoint = etcd.endpoint();
        return start(Integer.parseInt(endpoint.substring(endpoint.lastIndexOf(':') + 1)));
    }

    /** The relay's own endpoint, in etcd's URL form. */
    public String endpoint() {
        return "http://127.0.0.1:" + listener.getLocalPort();
    }

    /** Resets every relayed connection and refuses new ones until {@link #restore()}. */
    public void cut() {
        cut = true;
        open.forEach(TcpRelay::reset);
        open.clear();
    }

    /**
     * Keeps connections open but stops relaying bytes, as a silent network partition does: no
     * error reaches either side until it times out on its own.
     */
    public void stall() {
        stalled = true;
    }

    /** Ends a cut or a stall; stalled bytes flow on. */
    public void restore() {
        cut = false;
        stalled = false;
    }

    @Override
    public void close() {
        closed = true;
        closeQuietly(listener);
        cut();
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                return;
            }
            if (cut) {
                closeQuietly(client);
                continue;
            }
            try {
                Socket server = new Socket();
                server.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort), 2000);
                open.add(client);
                open.add(server);
                pump(client, server);
                pump(server, client);
            } catch (IOException e) {
                closeQuietly(client);
            }
        }
    }

    private void pump(Socket from, Socket to) {
        Thread thread = new Thread(() -> {
            byte[] buffer = new byte[16 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int read;
                while ((read = in.read(buffer)) >= 0) {
                    while (stalled && !closed) {
                        Thread.sleep(10);
                    }
                    out.write(buffer, 0, read);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (IOException e) {
                // Cut or closed by either side: this direction ends with the connection.
            } finally {
                closeQuietly(from);
                closeQuietly(to);
                open.remove(from);
                open.remove(to);
            }
        }, "tcp-relay-pump");
        thread.setDaemon(true);
        thread.start();
    }

    /** Closes with SO_LINGER 0, so the peer sees a connection reset as when a host goes away. */
    private static void reset(Socket socket) {
        try {
            socket.setSoLinger(true, 0);
        } catch (IOException e) {
            // Already closed.
        }
        closeQuietly(socket);
    }

    private static void closeQuietly(java.io.Closeable closeable) {
        try {
            closeable.close();
        } catch (IOException e) {
            // Already closed.
        }
    }
}
