package io.leasehold.bench.report;

import java.util.List;
import java.util.Locale;

/** Median, minimum and maximum of a few values (one per round). */
public record Spread(double median, double min, double max, int count) {

    public static Spread of(List<Double> values) {
        if (values.isEmpty()) {
            return new Spread(Double.NaN, Double.NaN, Double.NaN, 0);
        }
        List<Double> sorted = values.stream().sorted().toList();
        int n = sorted.size();
        double median = n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
        return new Spread(median, sorted.get(0), sorted.get(n - 1), n);
    }

    public boolean isEmpty() {
        return count == 0;
    }

    /** {@code median (min..max)} with the given number format, or {@code n/a}. */
    public String format(String numberFormat) {
        if (isEmpty()) {
            return "n/a";
        }
        String median = String.format(Locale.ROOT, numberFormat, this.median);
        if (count == 1) {
            return median;
        }
        return median + " (" + String.format(Locale.ROOT, numberFormat, min) + ".."
                + String.format(Locale.ROOT, numberFormat, max) + ")";
    }
}
