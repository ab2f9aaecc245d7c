package io.leasehold.audit;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;

/**
 * Command-line offset auditor: merges journal files, reads the journaled topics back through
 * each bootstrap address and prints the per-partition table and the verdict.
 */
public final class AuditCli {

    /** Exit code when the audit is clean. */
    public static final int CLEAN = 0;
    /** Exit code when anything is wrong. */
    public static final int DIRTY = 1;
    /** Exit code for bad flags or an unreadable journal. */
    public static final int USAGE = 2;

    private final PrintStream out;
    private final PrintStream err;

    /** A CLI printing the report to {@code out} and problems with the input to {@code err}. */
    public AuditCli(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    /** Runs the auditor as a program; see {@link AuditArguments#USAGE}. */
    public static void main(String[] args) {
        System.exit(new AuditCli(System.out, System.err).run(args));
    }

    /** Runs one audit and returns the exit code. */
    public int run(String... args) {
        AuditArguments arguments;
        try {
            arguments = AuditArguments.parse(args);
        } catch (IllegalArgumentException e) {
            err.println("leasehold-audit: " + e.getMessage());
            err.println(AuditArguments.USAGE);
            return USAGE;
        }
        ProduceJournal journal = new ProduceJournal();
        for (Path file : arguments.journals()) {
            try {
                JournalFile.readInto(file, journal);
            } catch (IOException e) {
                err.println("leasehold-audit: cannot read journal " + file + ": " + e);
                return USAGE;
            } catch (JournalFormatException e) {
                err.println("leasehold-audit: " + e.getMessage());
                return USAGE;
            }
        }
        if (journal.size() == 0) {
            err.println("leasehold-audit: the journals " + arguments.journals() + " contain no sends; nothing to audit");
            return USAGE;
        }
        AuditVerdict verdict = new OffsetAuditor(arguments.duplicatesTolerated()).readAndAudit(
                new TopicReader(arguments.timeout()), arguments.bootstrapAddresses(), journal.entries());
        out.print(verdict.report());
        return verdict.clean() ? CLEAN : DIRTY;
    }
}
