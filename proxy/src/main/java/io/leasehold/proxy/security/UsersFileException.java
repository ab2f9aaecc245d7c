package io.leasehold.proxy.security;

import java.util.List;

/** The users file cannot be used; the message lists every problem with its place, never a secret. */
public final class UsersFileException extends Exception {
    private final List<String> problems;

    UsersFileException(List<String> problems) {
        super(String.join(System.lineSeparator(), problems));
        this.problems = List.copyOf(problems);
    }

    public List<String> problems() {
        return problems;
    }
}
