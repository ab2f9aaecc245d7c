package io.leasehold.testing;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Replaces the class directories of a class path ({@code target/classes}, {@code target/test-classes})
 * with jars of the same content, which JDK 17's class-data sharing requires. A jar is named after
 * its directory's content (paths, sizes, modification times), so every test JVM of a build, and
 * every start, uses the same file: class-data archives check the jars they were written with.
 */
final class ClasspathJars {

    /** Fixed entry times: two jars of the same content are the same bytes. */
    private static final FileTime ENTRY_TIME = FileTime.fromMillis(0);

    private final Path directory;

    /** Jars are written under {@code directory}. */
    ClasspathJars(Path directory) {
        this.directory = directory;
    }

    /** {@code classpath} with every non-empty directory replaced by a jar of it. */
    String replaceDirectories(String classpath) {
        return Arrays.stream(classpath.split(File.pathSeparator))
                .map(entry -> isNonEmptyDirectory(Path.of(entry)) ? jarOf(Path.of(entry)).toString() : entry)
                .collect(Collectors.joining(File.pathSeparator));
    }

    private static boolean isNonEmptyDirectory(Path path) {
        if (!Files.isDirectory(path)) {
            return false;
        }
        try (Stream<Path> children = Files.list(path)) {
            return children.findAny().isPresent();
        } catch (IOException e) {
            throw new UncheckedIOException("class path directory " + path + " could not be listed", e);
        }
    }

    private Path jarOf(Path classes) {
        try {
            List<Path> files = files(classes);
            Path jar = directory.resolve(classes.getFileName() + "-" + contentKey(classes, files) + ".jar");
            if (Files.exists(jar)) {
                return jar;
            }
            Files.createDirectories(directory);
            Path partial = Files.createTempFile(directory, jar.getFileName().toString(), ".partial");
            try {
                write(classes, files, partial);
                // Not replacing: JVMs may run on the jar already, and archives check its modification time.
                Files.move(partial, jar);
            } catch (FileAlreadyExistsException e) {
                // Another test JVM wrote the same content first.
            } finally {
                Files.deleteIfExists(partial);
            }
            return jar;
        } catch (IOException e) {
            throw new UncheckedIOException("a jar of class path directory " + classes + " could not be written", e);
        }
    }

    private static List<Path> files(Path classes) throws IOException {
        try (Stream<Path> all = Files.walk(classes)) {
            return all.filter(Files::isRegularFile).sorted().toList();
        }
    }

    private static String contentKey(Path classes, List<Path> files) throws IOException {
        StringBuilder listing = new StringBuilder();
        for (Path file : files) {
            listing.append(classes.relativize(file)).append(' ').append(Files.size(file)).append(' ')
                    .append(Files.getLastModifiedTime(file).toMillis()).append('\n');
        }
        return hexDigest(listing.toString(), 8);
    }

    /** The first {@code bytes} bytes of {@code text}'s SHA-256, in hex: a short name for content. */
    static String hexDigest(String text, int bytes) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every Java runtime", e);
        }
    }

    private static void write(Path classes, List<Path> files, Path jar) throws IOException {
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream zip = new JarOutputStream(out)) {
            List<Path> directories;
            try (Stream<Path> all = Files.walk(classes)) {
                directories = all.filter(Files::isDirectory).filter(d -> !d.equals(classes)).sorted().toList();
            }
            // Directory entries too: a resource lookup of a package finds it, as in the directory.
            for (Path dir : directories) {
                zip.putNextEntry(entry(classes.relativize(dir) + "/"));
                zip.closeEntry();
            }
            for (Path file : files) {
                zip.putNextEntry(entry(classes.relativize(file).toString()));
                Files.copy(file, zip);
                zip.closeEntry();
            }
        }
    }

    private static JarEntry entry(String name) {
        JarEntry entry = new JarEntry(name.replace(File.separatorChar, '/'));
        entry.setLastModifiedTime(ENTRY_TIME);
        return entry;
    }
}
