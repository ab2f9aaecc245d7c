package io.leasehold.testing;

/**
 * A child JVM for {@link ManagedProcessTest}: prints {@code READY} like the brokers and proxies
 * do and waits to be signalled, or with argument {@code fail} logs to stderr and exits with 3.
 */
public final class ReadyLineFixtureMain {

    private ReadyLineFixtureMain() {
    }

    /** Entry point of the child process. */
    public static void main(String[] args) throws InterruptedException {
        if (args.length > 0 && args[0].equals("fail")) {
            System.err.println("fixture: refusing to start because it was asked to fail");
            System.exit(3);
        }
        System.out.println("starting");
        System.out.println("READY 127.0.0.1:4242");
        System.out.flush();
        Thread.sleep(120_000);
    }
}
