package io.leasehold.proxy.quotas;

import java.util.List;

/** The quotas file cannot be used; the message lists every problem with the file and the entry's line and key. */
public final class QuotasFileException extends Exception {
    private final List<String> problems;

    QuotasFileException(List<String> problems) {
        super(String.join(System.lineSeparator(), problems));
        this.problems = List.copyOf(problems);
    }

    public List<String> problems() {
        return problems;
    }
}
