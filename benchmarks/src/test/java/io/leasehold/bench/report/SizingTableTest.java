package io.leasehold.bench.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The sizing table is generated from a fixed CSV exactly as docs/operations.md shows it. */
class SizingTableTest {

    private static final List<String> CSV = List.of(
            "# date: 2026-12-06T04:30:00Z",
            "# commit: abc1234",
            "# machine: Test CPU, 2 cores",
            "# proxy jvm: flags for 1 GiB: `-XX:MaxRAMPercentage=40`",
            "# cell: 5 s not counted, then 1 + 10 s",
            "# load average at start: 1.00 2.00 3.00",
            "# warm-up plaintext: C2 settled after 3 passes",
            "# load average at end: 4.00 5.00 6.00",
            SizingRow.HEADER,
            // 1.5 CPU s over 150 MB: 10 millicores per MB/s.
            "produce,plaintext,1,20.000,19.900,1.500,11.0,150.000,300.4,,,0,0,,,,,2.50 2.00 1.00",
            // Reached 12 of 20 MB/s: under 95 %, so bold; 3 records failed.
            "produce,TLS,1,20.000,12.000,3.000,11.0,120.000,350.0,,,3,0,,,,,3.50 2.00 1.00",
            "consume,plaintext,,5.000,5.000,0.110,11.0,55.000,301.0,,,0,0,,,,,2.00 2.00 1.00",
            "latency,direct,all,,1.024,,,,,1.000,4.000,0,0,,,,,1.00 1.00 1.00",
            "latency,plaintext,all,,1.024,,,,,1.500,6.000,0,0,,,,,1.00 1.00 1.00",
            "latency,direct,all,,1.024,,,,,3.000,8.000,0,0,,,,,1.00 1.00 1.00",
            "latency,plaintext,all,,1.024,,,,,3.100,9.000,0,0,,,,,1.00 1.00 1.00",
            "idle,plaintext,,,,,,,,,,0,2000,300.000,340.000,20.000,26.000,1.00 1.00 1.00");

    @Test
    void throughputRowsGiveMillicoresPerMegabytePerSecondMemoryAndTheReachedRate() {
        String table = SizingTable.render(CSV);

        assertThat(table).contains("| traffic | MB/s | plaintext millicores per MB/s | TLS millicores per MB/s |"
                + " RSS MiB plaintext / TLS | reached MB/s plaintext / TLS | load average (1 min) |");
        assertThat(table).contains("| produce acks=1 | 20 | 10.0 | 25.0 | 300 / 350 | 19.9 / **12.0** | 2.5–3.5 |");
        assertThat(table).contains("| consume | 5 | 2.0 | – | 301 / – | 5.0 / – | 2.0 |");
        assertThat(table).contains("Cells with failed records: produce TLS acks=1 20 MB/s: 3.");
    }

    @Test
    void latencyIsTheMedianOfTheRoundsAndWhatTheProxyAdds() {
        String table = SizingTable.render(CSV);

        assertThat(table).contains("| produce acks=all, 1 KiB records, 1,000 records/s reached;"
                + " median (min..max) of 2 interleaved rounds |");
        assertThat(table).contains("| direct to the broker | 2.00 (1.00..3.00) | 6.00 (4.00..8.00) | 1.0 |");
        assertThat(table).contains("| through the proxy (plaintext) | 2.30 (1.50..3.10) | 7.50 (6.00..9.00) | 1.0 |");
        assertThat(table).contains("| added by the proxy (difference of the medians) | +0.30 | +1.50 | |");
    }

    @Test
    void idleConnectionsAreCountedPerThousand() {
        String table = SizingTable.render(CSV);

        assertThat(table).contains("| 2,000: RSS MiB | 300 | 340 | 20.0 | 1.0 |");
        assertThat(table).contains("| 2,000: heap used after a full GC, MiB | 20.0 | 26.0 | 3.0 | |");
    }

    @Test
    void theHeaderSaysWhenWhereAndHowItWasMeasured() {
        String table = SizingTable.render(CSV);

        assertThat(table).contains("measured 2026-12-06T04:30:00Z at commit `abc1234` on Test CPU, 2 cores.");
        assertThat(table).contains("Load average (1, 5, 15 min) 1.00 2.00 3.00 at the start, 4.00 5.00 6.00 at the end.");
        assertThat(table).contains("Proxy JVM: flags for 1 GiB: `-XX:MaxRAMPercentage=40`.");
        assertThat(table).contains("Compiler warm-up, per proxy: plaintext: C2 settled after 3 passes.");
    }

    @Test
    void onlyTheMarkedSectionIsReplaced() {
        String document = "# Ops\n\nbefore\n" + SizingTable.BEGIN + "\nold table\n" + SizingTable.END + "\nafter\n";

        String replaced = SizingTable.replaceSection(document, "new table\n");

        assertThat(replaced).isEqualTo("# Ops\n\nbefore\n" + SizingTable.BEGIN + "\nnew table\n" + SizingTable.END
                + "\nafter\n");
        assertThat(SizingTable.replaceSection(replaced, "new table\n")).isEqualTo(replaced);
        assertThatThrownBy(() -> SizingTable.replaceSection("no markers", "x"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aRowReadsBackAsItWasWritten() {
        SizingRow row = SizingRow.throughput("produce", "SASL", "all", 50, 49.5, 2.25, 11.5, 560, 280.5, 2,
                "1.50 1.00 0.50");

        SizingRow back = SizingRow.parse(row.toCsv());

        assertThat(back).isEqualTo(row);
        assertThat(back.millicoresPerMegabytePerSecond()).isCloseTo(2.25 * 1000 / 560, within(1e-9));
    }
}
