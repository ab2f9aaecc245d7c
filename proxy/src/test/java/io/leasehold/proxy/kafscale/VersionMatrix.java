package io.leasehold.proxy.kafscale;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;

/**
 * Asks a proxy which APIs and versions it advertises, then sends a {@link SampleRequests} request
 * in every one of them, one at a time on one connection, and records for each whether the proxy
 * served it: an answer within the bound, readable in that version, with no UNSUPPORTED_VERSION
 * (top level or for any resource) and no UNKNOWN_SERVER_ERROR (what a failed re-encoding turns into).
 * A connection the proxy closes or leaves silent is replaced, and the version counts as not served.
 */
final class VersionMatrix {

    /** What happened to one version of one API. */
    record Cell(ApiKeys api, short version, boolean served, String outcome) {
    }

    /** One advertised API: its range and what each version got. */
    record Row(ApiKeys api, short min, short max, List<Cell> cells) {

        List<Cell> unserved() {
            return cells.stream().filter(cell -> !cell.served()).toList();
        }

        /** "all" or the versions not served, with what they got. */
        String served() {
            List<Cell> failed = unserved();
            return failed.isEmpty() ? "all" : "**not** " + failed.stream()
                    .map(cell -> "v" + cell.version() + " (" + cell.outcome() + ")").collect(Collectors.joining(", "));
        }

        /** The error codes the sample requests got, for the reader's curiosity (not a verdict). */
        String answers() {
            return cells.stream().map(Cell::outcome).distinct().collect(Collectors.joining(", "));
        }
    }

    private final String host;
    private final int port;
    private final Duration answerWithin;

    VersionMatrix(String host, int port, Duration answerWithin) {
        this.host = host;
        this.port = port;
        this.answerWithin = answerWithin;
    }

    /** Every advertised API and version, probed; rows in API key order. */
    List<Row> probe(SampleRequests samples) throws IOException {
        WireConnection connection = new WireConnection(host, port, answerWithin);
        try {
            ApiVersionsResponseData advertised = (ApiVersionsResponseData) connection.send(ApiKeys.API_VERSIONS,
                    (short) 3, new ApiVersionsRequestData().setClientSoftwareName("matrix").setClientSoftwareVersion("1"))
                    .data();
            List<ApiVersion> ranges = new ArrayList<>(advertised.apiKeys());
            ranges.sort(Comparator.comparingInt(ApiVersion::apiKey));
            List<Row> rows = new ArrayList<>();
            for (ApiVersion range : ranges) {
                ApiKeys api = ApiKeys.forId(range.apiKey());
                List<Cell> cells = new ArrayList<>();
                for (short v = range.minVersion(); v <= range.maxVersion(); v++) {
                    Cell cell = probeOne(connection, api, v, samples);
                    cells.add(cell);
                    if (!cell.served() && !connection.isOpen()) {
                        connection = new WireConnection(host, port, answerWithin);
                    }
                }
                rows.add(new Row(api, range.minVersion(), range.maxVersion(), cells));
            }
            connection.send(ApiKeys.API_VERSIONS, (short) 3, new ApiVersionsRequestData()
                    .setClientSoftwareName("matrix").setClientSoftwareVersion("1"));
            return rows;
        } finally {
            connection.close();
        }
    }

    private Cell probeOne(WireConnection connection, ApiKeys api, short v, SampleRequests samples) throws IOException {
        try {
            AbstractResponse answer = connection.send(api, v, samples.of(api, v));
            Map<Errors, Integer> errors = new TreeMap<>(answer.errorCounts());
            boolean served = !errors.containsKey(Errors.UNSUPPORTED_VERSION)
                    && !errors.containsKey(Errors.UNKNOWN_SERVER_ERROR);
            String outcome = errors.isEmpty() ? "NONE"
                    : errors.keySet().stream().map(Errors::name).collect(Collectors.joining("+"));
            return new Cell(api, v, served, outcome);
        } catch (SocketTimeoutException e) {
            connection.close();
            return new Cell(api, v, false, "no answer within " + answerWithin.toSeconds() + " s");
        } catch (IOException e) {
            connection.close();
            return new Cell(api, v, false, "connection closed: " + e);
        } catch (RuntimeException e) {
            connection.close();
            return new Cell(api, v, false, "unreadable answer: " + e.getMessage());
        }
    }

    /** The rows as a Markdown table, as {@code docs/protocol-support.md} shows them. */
    static String markdown(String backend, List<Row> rows) {
        StringBuilder table = new StringBuilder("| API (key) | advertised in front of " + backend
                + " | served | answers to the sample requests |\n|---|---|---|---|\n");
        for (Row row : rows) {
            table.append("| ").append(row.api().name).append(" (").append(row.api().id).append(") | ")
                    .append(row.min()).append("–").append(row.max()).append(" | ").append(row.served()).append(" | ")
                    .append(row.answers()).append(" |\n");
        }
        return table.toString();
    }
}
