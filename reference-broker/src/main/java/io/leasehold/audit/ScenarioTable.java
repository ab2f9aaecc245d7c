package io.leasehold.audit;

import java.util.ArrayList;
import java.util.List;

/**
 * The results of several audited scenarios side by side (a fault suite's summary): records
 * produced, acknowledged, found, duplicated, missing and overlapping, one row per scenario, as
 * a Markdown table that reads well in a terminal and pastes into documentation.
 */
public final class ScenarioTable {

    private final List<Row> rows = new ArrayList<>();

    private record Row(String scenario, AuditVerdict verdict) {
    }

    /** Adds a scenario's verdict; rows keep the order they were added in. */
    public synchronized ScenarioTable add(String scenario, AuditVerdict verdict) {
        rows.add(new Row(scenario, verdict));
        return this;
    }

    /** The table, one row per scenario plus the header. */
    public synchronized String render() {
        StringBuilder out = new StringBuilder();
        out.append("| scenario | produced | acked | found | duplicated | acked missing | overlapping | gaps | verdict |\n");
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
        for (Row row : rows) {
            AuditVerdict v = row.verdict();
            out.append(String.format("| %s | %d | %d | %d | %d | %d | %d | %d | %s |%n", row.scenario(), v.produced(),
                    v.acked(), v.found(), v.duplicates(), v.ackedMissing(), v.overlaps(), v.gaps(),
                    v.clean() ? "clean" : "NOT CLEAN"));
        }
        return out.toString();
    }
}
