package io.leasehold.bench.load;

/** Formats record sizes the way the tables print them. */
public final class Sizes {

    private Sizes() {
    }

    public static String label(int bytes) {
        if (bytes >= 1024 && bytes % 1024 == 0) {
            return (bytes / 1024) + " KiB";
        }
        return bytes + " B";
    }
}
