package io.leasehold.broker;

import java.util.concurrent.CountDownLatch;

/**
 * Process entry point: parses the flags, starts the broker, prints {@code READY host:port} on
 * stdout once it serves and is registered, and shuts down gracefully on SIGTERM with exit code 0.
 * Bad flags print the problem and the usage on stderr and exit with code 2.
 */
public final class ReferenceBrokerMain {

    private ReferenceBrokerMain() {
    }

    public static void main(String[] args) {
        BrokerOptions options;
        try {
            options = BrokerOptions.parse(args);
        } catch (BrokerOptions.UsageException e) {
            System.err.println("reference-broker: " + e.getMessage());
            System.err.println(BrokerOptions.USAGE);
            System.exit(2);
            return;
        }
        ReferenceBroker broker;
        try {
            broker = ReferenceBroker.start(options);
        } catch (Exception e) {
            System.err.println("reference-broker: could not start: " + e);
            e.printStackTrace(System.err);
            System.exit(1);
            return;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            broker.close();
            stopped.countDown();
            // SIGTERM is the normal way to stop a broker, so the process reports success.
            Runtime.getRuntime().halt(0);
        }, "broker-shutdown"));
        System.out.println("READY " + options.host() + ":" + broker.port());
        System.out.flush();
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
