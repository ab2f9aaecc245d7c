package io.leasehold.proxy.files;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The content of a set of mounted files at one moment: every file's bytes, or why the first
 * unreadable one could not be read. Compared by content, not timestamps (a Kubernetes Secret
 * update swaps the files behind a symlink).
 */
public final class FileContents {
    private final List<Path> files;
    private final List<byte[]> bytes;
    private final String problem;

    private FileContents(List<Path> files, List<byte[]> bytes, String problem) {
        this.files = files;
        this.bytes = bytes;
        this.problem = problem;
    }

    /** Reads {@code files} now. */
    public static FileContents read(List<Path> files) {
        List<byte[]> read = new ArrayList<>();
        for (Path file : files) {
            try {
                read.add(Files.readAllBytes(file));
            } catch (IOException e) {
                return new FileContents(List.copyOf(files), List.of(), file + ": " + e);
            }
        }
        return new FileContents(List.copyOf(files), List.copyOf(read), null);
    }

    /** The files, in the order given to {@link #read}. */
    public List<Path> files() {
        return files;
    }

    /** Whether every file could be read. */
    public boolean readable() {
        return problem == null;
    }

    /** Which file could not be read and why; {@code null} when {@link #readable()}. */
    public String problem() {
        return problem;
    }

    /** The content of the {@code index}th file as UTF-8 text; only when {@link #readable()}. */
    public String text(int index) {
        return new String(bytes.get(index), StandardCharsets.UTF_8);
    }

    /** Whether {@code other} holds the same bytes (or the same read problem) for the same files. */
    boolean sameAs(FileContents other) {
        if (!files.equals(other.files) || bytes.size() != other.bytes.size()
                || !String.valueOf(problem).equals(String.valueOf(other.problem))) {
            return false;
        }
        for (int i = 0; i < bytes.size(); i++) {
            if (!Arrays.equals(bytes.get(i), other.bytes.get(i))) {
                return false;
            }
        }
        return true;
    }
}
