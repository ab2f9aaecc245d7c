package io.leasehold.proxy.security;

import java.util.Map;
import java.util.Optional;

/** An immutable snapshot of the users file: users by name. */
public final class UserDirectory {
    private final Map<String, UserCredentials> users;

    UserDirectory(Map<String, UserCredentials> users) {
        this.users = Map.copyOf(users);
    }

    /** The user called {@code name}, if the file lists one. */
    public Optional<UserCredentials> find(String name) {
        return Optional.ofNullable(users.get(name));
    }

    public int size() {
        return users.size();
    }
}
