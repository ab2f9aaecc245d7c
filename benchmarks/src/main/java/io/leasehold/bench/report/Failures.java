package io.leasehold.bench.report;

/** One-line descriptions of exceptions for the report, causes included. */
public final class Failures {

    private Failures() {
    }

    /** {@code e.toString()} followed by each cause's, so the root cause is never lost. */
    public static String describe(Throwable e) {
        StringBuilder message = new StringBuilder(firstLine(e.toString()));
        for (Throwable cause = e.getCause(); cause != null && cause != cause.getCause(); cause = cause.getCause()) {
            message.append(" <- ").append(firstLine(cause.toString()));
        }
        return message.toString();
    }

    private static String firstLine(String text) {
        int newline = text.indexOf('\n');
        return newline < 0 ? text : text.substring(0, newline);
    }
}
