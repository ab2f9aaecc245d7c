package io.leasehold.proxy.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs the real chart tools for tests: helm (installed by {@code scripts/ensure-helm}) and the
 * offline Kubernetes schema validator ({@code scripts/validate-manifests}).
 */
final class ChartTools {

    static final String RELEASE = "lh";
    static final String NAMESPACE = "kafka";
    private static final long TIMEOUT_SECONDS = 120;

    private final Path repo;
    private final Path chart;
    private final String helm;
    private final YAMLMapper yaml = new YAMLMapper();

    private ChartTools(Path repo, String helm) {
        this.repo = repo;
        this.chart = repo.resolve("helm/leasehold-proxy");
        this.helm = helm;
    }

    /** The repository root: the nearest directory above the working directory (proxy/) with the chart. */
    static Path repoRoot() {
        Path repo = Path.of("").toAbsolutePath();
        while (repo != null && !Files.isDirectory(repo.resolve("helm/leasehold-proxy"))) {
            repo = repo.getParent();
        }
        if (repo == null) {
            throw new IllegalStateException("no helm/leasehold-proxy above " + Path.of("").toAbsolutePath());
        }
        return repo;
    }

    /**
     * Makes sure the bundled, pinned helm is installed ({@code scripts/ensure-helm --bundled}) and
     * returns tools using it: renders must not depend on a helm the machine happens to have.
     */
    static ChartTools install() {
        Path repo = repoRoot();
        CommandResult ensured = run(List.of(repo.resolve("scripts/ensure-helm").toString(), "--bundled"), null, repo);
        if (!ensured.succeeded()) {
            throw new IllegalStateException("scripts/ensure-helm failed: " + ensured.describe());
        }
        return new ChartTools(repo, ensured.stdout().strip());
    }

    /**
     * Makes sure promtool and prometheus are installed ({@code scripts/ensure-prometheus}) and
     * returns the promtool path.
     */
    String ensurePrometheus() {
        CommandResult ensured = run(List.of(repo.resolve("scripts/ensure-prometheus").toString()), null);
        if (!ensured.succeeded()) {
            throw new IllegalStateException("scripts/ensure-prometheus failed: " + ensured.describe());
        }
        return ensured.stdout().strip();
    }

    Path repo() {
        return repo;
    }

    Path chart() {
        return chart;
    }

    /** The alert rules docs/operations.md explains: its {@code groups:} YAML block, as written there. */
    String documentedAlertRules() {
        try {
            Matcher block = Pattern.compile("```yaml\n(groups:.*?)```", Pattern.DOTALL)
                    .matcher(Files.readString(repo.resolve("docs/operations.md")));
            if (!block.find()) {
                throw new IllegalStateException("no ```yaml groups: block (alert rules) in docs/operations.md");
            }
            return block.group(1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The names of the alerts docs/operations.md explains, in their order there. */
    List<String> documentedAlertNames() {
        List<String> names = new ArrayList<>();
        documents(documentedAlertRules()).get(0).path("groups").forEach(group ->
                group.path("rules").forEach(rule -> names.add(rule.path("alert").asText())));
        return names;
    }

    CommandResult helm(String... args) {
        List<String> command = new ArrayList<>(List.of(helm));
        command.addAll(List.of(args));
        return run(command, null, repo);
    }

    /** {@code helm template} of the chart as release {@value #RELEASE} in namespace {@value #NAMESPACE}. */
    CommandResult template(String... valueArgs) {
        List<String> args = new ArrayList<>(List.of("template", RELEASE, chart.toString(), "--namespace", NAMESPACE));
        args.addAll(List.of(valueArgs));
        return helm(args.toArray(String[]::new));
    }

    /** Runs any command in the repository directory. */
    CommandResult run(List<String> command, String stdin) {
        return run(command, stdin, repo);
    }

    /** Runs the Kubernetes schema validator on multi-document YAML. */
    CommandResult validate(String manifests) {
        return run(List.of(repo.resolve("scripts/validate-manifests").toString()), manifests, repo);
    }

    List<JsonNode> documents(String manifests) {
        try (MappingIterator<JsonNode> docs = yaml.readerFor(JsonNode.class).readValues(manifests)) {
            List<JsonNode> result = new ArrayList<>();
            while (docs.hasNext()) {
                JsonNode doc = docs.next();
                if (doc != null && !doc.isNull() && !doc.isMissingNode()) {
                    result.add(doc);
                }
            }
            return result;
        } catch (IOException e) {
            throw new UncheckedIOException("helm output is not YAML", e);
        }
    }

    JsonNode readYaml(Path file) {
        try {
            return yaml.readTree(file.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static CommandResult run(List<String> command, String stdin, Path directory) {
        try {
            Process process = new ProcessBuilder(command).directory(directory.toFile()).start();
            CompletableFuture<String> out = readAsync(process.getInputStream());
            CompletableFuture<String> err = readAsync(process.getErrorStream());
            try (OutputStream in = process.getOutputStream()) {
                if (stdin != null) {
                    in.write(stdin.getBytes(StandardCharsets.UTF_8));
                }
            }
            if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(command + " did not finish within " + TIMEOUT_SECONDS + "s");
            }
            return new CommandResult(process.exitValue(), out.join(), err.join());
        } catch (IOException e) {
            throw new UncheckedIOException("could not run " + command, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted running " + command, e);
        }
    }

    private static CompletableFuture<String> readAsync(InputStream stream) {
        return CompletableFuture.supplyAsync(() -> {
            try (stream) {
                return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }
}
