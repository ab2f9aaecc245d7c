package io.leasehold.proxy.deploy;

/** What an external command did: its exit code and everything it printed. */
record CommandResult(int exitCode, String stdout, String stderr) {

    boolean succeeded() {
        return exitCode == 0;
    }

    /** For assertion messages. */
    String describe() {
        return "exit " + exitCode + "\n--- stdout ---\n" + stdout + "\n--- stderr ---\n" + stderr;
    }
}
