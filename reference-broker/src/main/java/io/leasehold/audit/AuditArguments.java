package io.leasehold.audit;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The auditor CLI's parsed flags.
 *
 * @param journals           journal files (JSON lines) to merge
 * @param bootstrapAddresses one read pass per entry (an entry may list several comma-separated brokers)
 */
public record AuditArguments(List<Path> journals, List<String> bootstrapAddresses, boolean duplicatesTolerated,
                             Duration timeout) {

    /** Usage text printed on bad flags. */
    public static final String USAGE = """
            usage: leasehold-audit --journal FILE [--journal FILE ...] --bootstrap HOST:PORT[,HOST:PORT...]
                                   [--bootstrap ...] [--allow-duplicates] [--timeout 60s]
              --journal FILE       a produce journal (JSON lines) written by AuditedWorkload; repeatable
              --bootstrap ADDRS    brokers to read the journaled topics back through; each occurrence is
                                   one read pass, and passes that disagree about an offset are an overlap
              --allow-duplicates   accept a record found at several offsets (client retries without idempotence)
              --timeout DURATION   bound on each read pass, e.g. 500ms, 30s, 2m (default 60s)
            exit code: 0 clean, 1 problems found, 2 bad usage or unreadable journal""";

    /** Parses flags; a bad flag is an {@link IllegalArgumentException} saying which and why. */
    public static AuditArguments parse(String... args) {
        List<Path> journals = new ArrayList<>();
        List<String> bootstraps = new ArrayList<>();
        boolean duplicates = false;
        Duration timeout = Duration.ofSeconds(60);
        for (int i = 0; i < args.length; i++) {
            String flag = args[i];
            switch (flag) {
                case "--journal" -> journals.add(Path.of(value(args, ++i, flag)));
                case "--bootstrap" -> bootstraps.add(value(args, ++i, flag));
                case "--allow-duplicates" -> duplicates = true;
                case "--timeout" -> timeout = duration(value(args, ++i, flag), flag);
                default -> throw new IllegalArgumentException("unknown flag '" + flag + "'");
            }
        }
        if (journals.isEmpty()) {
            throw new IllegalArgumentException("--journal is required");
        }
        if (bootstraps.isEmpty()) {
            throw new IllegalArgumentException("--bootstrap is required");
        }
        return new AuditArguments(journals, bootstraps, duplicates, timeout);
    }

    private static String value(String[] args, int index, String flag) {
        if (index >= args.length || args[index].startsWith("--")) {
            throw new IllegalArgumentException(flag + " needs a value");
        }
        return args[index];
    }

    /** Parses {@code 250ms}, {@code 5s}, {@code 10m} or {@code 1h}. */
    static Duration duration(String text, String flag) {
        String lower = text.trim().toLowerCase(Locale.ROOT);
        try {
            if (lower.endsWith("ms")) {
                return positive(Duration.ofMillis(Long.parseLong(lower.substring(0, lower.length() - 2))), text, flag);
            }
            long amount = Long.parseLong(lower.substring(0, lower.length() - 1));
            return switch (lower.charAt(lower.length() - 1)) {
                case 's' -> positive(Duration.ofSeconds(amount), text, flag);
                case 'm' -> positive(Duration.ofMinutes(amount), text, flag);
                case 'h' -> positive(Duration.ofHours(amount), text, flag);
                default -> throw new IllegalArgumentException(flag + ": '" + text + "' is not a duration like 500ms, 30s, 2m, 1h");
            };
        } catch (NumberFormatException | StringIndexOutOfBoundsException e) {
            throw new IllegalArgumentException(flag + ": '" + text + "' is not a duration like 500ms, 30s, 2m, 1h");
        }
    }

    private static Duration positive(Duration duration, String text, String flag) {
        if (duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException(flag + ": '" + text + "' must be positive");
        }
        return duration;
    }
}
