package io.leasehold.proxy.backend;

import io.leasehold.proxy.files.FileContents;
import io.leasehold.proxy.files.MountedFileWatcher;
import java.nio.file.Path;
import java.util.List;

/**
 * The proxy's one service identity towards brokers that require SASL ({@code backends.sasl}):
 * a user name from the config and a password from a mounted file, re-read when the file changes
 * so a rotated Secret takes effect on the next broker connection without a restart. The password
 * is never logged, nor part of any message.
 */
public final class BrokerCredentials {
    /** A user name and its password at one moment. */
    record Login(String username, char[] password) {
        @Override
        public String toString() {
            return "Login[" + username + "]";
        }
    }

    private final String username;
    private final Path passwordFile;
    private final FileContents loaded;
    private volatile String password;

    private BrokerCredentials(String username, Path passwordFile, FileContents loaded, String password) {
        this.username = username;
        this.passwordFile = passwordFile;
        this.loaded = loaded;
        this.password = password;
    }

    /**
     * Reads the password now.
     *
     * @throws IllegalArgumentException saying which file and what is wrong with it (unreadable or empty)
     */
    public static BrokerCredentials load(String username, Path passwordFile) {
        FileContents contents = FileContents.read(List.of(passwordFile));
        if (!contents.readable()) {
            throw new IllegalArgumentException("backends.sasl.passwordFile: cannot read " + contents.problem());
        }
        return new BrokerCredentials(username, passwordFile, contents, password(passwordFile, contents));
    }

    /** Has {@code watcher} re-read the password when the file changes; an empty file keeps the old one. */
    public void reloadWith(MountedFileWatcher watcher) {
        watcher.watch("broker SASL password file", loaded, contents -> {
            password = password(passwordFile, contents);
            return "password for broker user " + username;
        }, MountedFileWatcher.Outcomes.UNCOUNTED);
    }

    /** The user name the proxy logs in as. */
    String username() {
        return username;
    }

    /** The user name and the password in force; reads no file. */
    Login current() {
        return new Login(username, password.toCharArray());
    }

    private static String password(Path passwordFile, FileContents contents) {
        // A Secret created from a file often ends in a newline that is no part of the password.
        String text = contents.text(0).strip();
        if (text.isEmpty()) {
            throw new IllegalArgumentException("backends.sasl.passwordFile: " + passwordFile + " is empty");
        }
        return text;
    }
}
