package io.leasehold.proxy.faults;

import io.leasehold.proxy.protocol.KafkaMessages;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * The attacker of {@link HostileLoadTest}, run as its own JVM so the test measures the proxy and
 * not the attacker's CPU: {@value #IDLE_SOCKETS} sockets from 127.0.0.2–6 that send nothing or
 * only the first 3 bytes of a frame length, {@value #TRICKLERS} sockets from 127.0.0.7 trickling
 * one frame a byte per socket every 200 ms, and {@value #FLOODERS} connections from 127.0.0.8
 * writing batches of {@value #FLOOD_BATCH} pipelined ApiVersions requests as fast as they can and
 * reading the answers. Prints {@code READY <proxy>} once every socket is open and the flood
 * runs; after the attack time it stops flooding and trickling, prints
 * {@code ATTACK ENDED sent=N answered=M} and keeps its idle and trickling sockets open, for the
 * proxy's deadlines to close, until it is killed or {@link #LINGER} passed.
 *
 * <p>Arguments: {@code <proxy host:port> <attack seconds>}.
 */
public final class HostileClientsMain {
    static final int IDLE_SOCKETS = 5_000;
    /** Loopback source addresses the idle sockets come from (127.0.0.2 ...), 1,000 each. */
    static final int IDLE_SOURCES = 5;
    static final int TRICKLERS = 100;
    static final int FLOODERS = 8;
    /** Pipelined requests per flood write: one socket read brings the proxy thousands of frames. */
    static final int FLOOD_BATCH = 2_000;
    /** The line printed when the attack time is over. */
    static final String ENDED = "ATTACK ENDED";
    /** How long the sockets stay open after the attack if nobody kills this process. */
    private static final Duration LINGER = Duration.ofMinutes(3);

    private HostileClientsMain() {
    }

    /** Entry point of the attacker process. */
    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: HostileClientsMain <proxy host:port> <attack seconds>");
            System.exit(2);
        }
        InetSocketAddress proxy = target(args[0]);
        Duration attack = Duration.ofSeconds(Long.parseLong(args[1]));
        List<Socket> idle = idleSockets(proxy);
        Flood flood = new Flood(proxy);
        Trickle trickle = new Trickle(proxy);
        flood.start();
        trickle.start();
        System.out.println("READY " + args[0]);
        System.out.flush();
        Thread.sleep(attack.toMillis());
        flood.stop();
        trickle.stopTrickling();
        System.out.println(ENDED + " sent=" + flood.sent() + " answered=" + flood.answered()
                + " idleSockets=" + idle.size());
        System.out.flush();
        Thread.sleep(LINGER.toMillis());
    }

    private static InetSocketAddress target(String address) {
        int colon = address.lastIndexOf(':');
        return new InetSocketAddress(address.substring(0, colon), Integer.parseInt(address.substring(colon + 1)));
    }

    private static Socket connectFrom(String source, InetSocketAddress proxy) throws IOException {
        Socket socket = new Socket();
        socket.bind(new InetSocketAddress(InetAddress.getByName(source), 0));
        socket.connect(proxy, 10_000);
        return socket;
    }

    private static Thread started(Thread thread) {
        thread.start();
        return thread;
    }

    /** Sockets that connect and send nothing, or only the first bytes of a frame's length. */
    private static List<Socket> idleSockets(InetSocketAddress proxy) throws IOException {
        List<Socket> sockets = new ArrayList<>();
        for (int i = 0; i < IDLE_SOCKETS; i++) {
            Socket socket = connectFrom("127.0.0." + (2 + i % IDLE_SOURCES), proxy);
            sockets.add(socket);
            if (i % 2 == 1) {
                socket.getOutputStream().write(new byte[] {0, 0, 1});
            }
        }
        return sockets;
    }

    private static byte[] apiVersionsFrame(String clientId) {
        ByteBuf request = KafkaMessages.encodeRequest(ByteBufAllocator.DEFAULT, ApiKeys.API_VERSIONS, (short) 0, clientId,
                new ApiVersionsRequestData());
        try {
            byte[] frame = new byte[4 + request.readableBytes()];
            ByteBuffer.wrap(frame).putInt(request.readableBytes());
            request.getBytes(request.readerIndex(), frame, 4, request.readableBytes());
            return frame;
        } finally {
            request.release();
        }
    }

    /** Connections writing batches of tiny pipelined requests as fast as they can, and reading the answers. */
    private static final class Flood {
        private final InetSocketAddress proxy;
        private final AtomicBoolean stop = new AtomicBoolean();
        private final AtomicLong sent = new AtomicLong();
        private final AtomicLong answered = new AtomicLong();
        private final List<Socket> sockets = new ArrayList<>();
        private final List<Thread> threads = new ArrayList<>();

        Flood(InetSocketAddress proxy) {
            this.proxy = proxy;
        }

        void start() throws IOException {
            byte[] one = apiVersionsFrame("f");
            byte[] batch = new byte[one.length * FLOOD_BATCH];
            for (int i = 0; i < FLOOD_BATCH; i++) {
                System.arraycopy(one, 0, batch, i * one.length, one.length);
            }
            for (int i = 0; i < FLOODERS; i++) {
                Socket socket = connectFrom("127.0.0.8", proxy);
                sockets.add(socket);
                threads.add(started(new Thread(() -> write(socket, batch), "flood-writer-" + i)));
                threads.add(started(new Thread(() -> read(socket), "flood-reader-" + i)));
            }
        }

        private void write(Socket socket, byte[] batch) {
            try {
                OutputStream out = socket.getOutputStream();
                while (!stop.get()) {
                    out.write(batch);
                    sent.addAndGet(FLOOD_BATCH);
                }
            } catch (IOException closed) {
                // Closed by stop() or by the proxy.
            }
        }

        private void read(Socket socket) {
            try {
                InputStream in = socket.getInputStream();
                byte[] length = new byte[4];
                while (!stop.get()) {
                    in.readNBytes(length, 0, 4);
                    in.skipNBytes(ByteBuffer.wrap(length).getInt());
                    answered.incrementAndGet();
                }
            } catch (IOException closed) {
                // Closed by stop() or by the proxy.
            }
        }

        long sent() {
            return sent.get();
        }

        long answered() {
            return answered.get();
        }

        void stop() throws IOException, InterruptedException {
            stop.set(true);
            for (Socket socket : sockets) {
                socket.close();
            }
            for (Thread thread : threads) {
                thread.join(10_000);
            }
        }
    }

    /**
     * Sockets each sending one frame a byte at a time, one byte per socket every 200 ms; after
     * {@link #stopTrickling()} they stay open and silent, for the proxy to close.
     */
    private static final class Trickle {
        private final InetSocketAddress proxy;
        private final AtomicBoolean stop = new AtomicBoolean();
        private final List<Socket> sockets = new ArrayList<>();
        private Thread thread;

        Trickle(InetSocketAddress proxy) {
            this.proxy = proxy;
        }

        void start() throws IOException {
            for (int i = 0; i < TRICKLERS; i++) {
                sockets.add(connectFrom("127.0.0.7", proxy));
            }
            byte[] frame = apiVersionsFrame("t".repeat(200));
            thread = started(new Thread(() -> {
                for (int position = 0; position < frame.length - 1 && !stop.get(); position++) {
                    for (Socket socket : sockets) {
                        try {
                            socket.getOutputStream().write(frame[position]);
                        } catch (IOException closedByTheProxy) {
                            // Counted by the proxy; the others go on.
                        }
                    }
                    try {
                        Thread.sleep(200);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "trickle"));
        }

        void stopTrickling() throws InterruptedException {
            stop.set(true);
            thread.join(10_000);
        }
    }
}
