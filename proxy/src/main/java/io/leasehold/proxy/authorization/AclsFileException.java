package io.leasehold.proxy.authorization;

import java.util.List;

/** The ACL file cannot be used; the message lists every problem with the file and the entry's line and key. */
public final class AclsFileException extends Exception {
    private final List<String> problems;

    AclsFileException(List<String> problems) {
        super(String.join(System.lineSeparator(), problems));
        this.problems = List.copyOf(problems);
    }

    public List<String> problems() {
        return problems;
    }
}
