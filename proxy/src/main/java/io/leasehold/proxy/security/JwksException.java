package io.leasehold.proxy.security;

import java.util.List;

/** A JWKS document (file or URL) cannot be read or is not a usable key set; the message says where and why. */
public final class JwksException extends Exception {
    private final List<String> problems;

    JwksException(String problem) {
        super(problem);
        this.problems = List.of(problem);
    }

    /** The problems, one line each, for start-up error reports. */
    public List<String> problems() {
        return problems;
    }
}
