package io.leasehold.bench.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * A Markdown table of freshly started proxies measured window by window: per window (rows, in the
 * order first added) and per proxy, MB/s, proxy CPU s/GB and the compiler share, each the median
 * (min..max) over the rounds, then for each ratio the numerator proxy's MB/s and CPU s/GB over the
 * denominator's, computed round by round (the two ran in the same round) and then summarised.
 */
public final class WindowedCpuTable {

    /** A ratio column pair: {@code numerator}'s figures over {@code denominator}'s. */
    public record Ratio(String numerator, String denominator) {
    }

    private final List<String> proxies;
    private final List<Ratio> ratios;
    /** Window → proxy → one entry per round, in round order. */
    private final Map<String, Map<String, List<WindowFigures>>> figures = new LinkedHashMap<>();

    /**
     * @param proxies the proxies' column names, in column order
     * @param ratios  the ratios to show; both sides must be among {@code proxies}
     */
    public WindowedCpuTable(List<String> proxies, List<Ratio> ratios) {
        for (Ratio ratio : ratios) {
            if (!proxies.contains(ratio.numerator()) || !proxies.contains(ratio.denominator())) {
                throw new IllegalArgumentException("ratio " + ratio + " names a proxy not in " + proxies);
            }
        }
        this.proxies = List.copyOf(proxies);
        this.ratios = List.copyOf(ratios);
    }

    /** Records one round's figures of {@code proxy} in {@code window}; rounds are added in order. */
    public void add(String window, String proxy, WindowFigures windowFigures) {
        if (!proxies.contains(proxy)) {
            throw new IllegalArgumentException("unknown proxy " + proxy + ", not in " + proxies);
        }
        figures.computeIfAbsent(window, w -> new LinkedHashMap<>()).computeIfAbsent(proxy, p -> new ArrayList<>())
                .add(windowFigures);
    }

    public String render() {
        List<String> header = new ArrayList<>(List.of("window"));
        proxies.forEach(p -> header.add(p + " MB/s"));
        proxies.forEach(p -> header.add(p + " CPU s/GB"));
        proxies.forEach(p -> header.add(p + " compiler %"));
        ratios.forEach(r -> header.add(r.numerator() + "/" + r.denominator() + " MB/s"));
        ratios.forEach(r -> header.add(r.numerator() + "/" + r.denominator() + " CPU s/GB"));
        StringBuilder out = new StringBuilder(row(header));
        out.append("|---".repeat(header.size())).append("|\n");
        figures.forEach((window, byProxy) -> {
            List<String> cells = new ArrayList<>(List.of(window));
            proxies.forEach(p -> cells.add(spread(byProxy, p, WindowFigures::megabytesPerSecond).format("%.1f")));
            proxies.forEach(p -> cells.add(spread(byProxy, p, WindowFigures::cpuSecondsPerGigabyte).format("%.2f")));
            proxies.forEach(p -> cells.add(spread(byProxy, p, f -> 100 * f.compilerShare()).format("%.1f")));
            ratios.forEach(r -> cells.add(ratio(byProxy, r, WindowFigures::megabytesPerSecond).format("%.2f")));
            ratios.forEach(r -> cells.add(ratio(byProxy, r, WindowFigures::cpuSecondsPerGigabyte).format("%.2f")));
            out.append(row(cells));
        });
        return out.toString();
    }

    private static Spread spread(Map<String, List<WindowFigures>> byProxy, String proxy,
            ToDoubleFunction<WindowFigures> figure) {
        return Spread.of(byProxy.getOrDefault(proxy, List.of()).stream().mapToDouble(figure)
                .filter(value -> !Double.isNaN(value)).boxed().toList());
    }

    /** Round by round: a round where either side is missing is left out. */
    private static Spread ratio(Map<String, List<WindowFigures>> byProxy, Ratio ratio,
            ToDoubleFunction<WindowFigures> figure) {
        List<WindowFigures> numerators = byProxy.getOrDefault(ratio.numerator(), List.of());
        List<WindowFigures> denominators = byProxy.getOrDefault(ratio.denominator(), List.of());
        List<Double> values = new ArrayList<>();
        for (int round = 0; round < Math.min(numerators.size(), denominators.size()); round++) {
            values.add(figure.applyAsDouble(numerators.get(round)) / figure.applyAsDouble(denominators.get(round)));
        }
        return Spread.of(values);
    }

    private static String row(List<String> cells) {
        return "| " + String.join(" | ", cells) + " |\n";
    }
}
