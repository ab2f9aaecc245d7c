package io.leasehold.bench.report;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.CombinedDomainXYPlot;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * The PNG chart of the scaling series: produce throughput (MB/s) and p99 latency (ms) against the
 * number of producers, one line per path (direct and each proxy), medians of the rounds.
 */
public final class ScalingChart {

    private ScalingChart() {
    }

    public static void write(Path png, String title, List<Comparison> scaling) {
        List<Comparison> sorted = scaling.stream().sorted(Comparator.comparingInt(Comparison::clients)).toList();
        NumberAxis producers = new NumberAxis("producers");
        producers.setStandardTickUnits(NumberAxis.createIntegerTickUnits());
        CombinedDomainXYPlot plot = new CombinedDomainXYPlot(producers);
        XYPlot throughput = subPlot("throughput MB/s", sorted, (c, t) -> c.throughput(t).median());
        plot.add(throughput, 1);
        plot.setFixedLegendItems(throughput.getLegendItems());
        plot.add(subPlot("p99 latency ms", sorted, (c, t) -> c.latency(t, 99).median()), 1);
        plot.setGap(12);
        JFreeChart chart = new JFreeChart(title, JFreeChart.DEFAULT_TITLE_FONT, plot, true);
        chart.setBackgroundPaint(Color.WHITE);
        try {
            ChartUtils.saveChartAsPNG(png.toFile(), chart, 900, 700);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write chart " + png, e);
        }
    }

    private interface Figure {
        double of(Comparison comparison, Target target);
    }

    private static final Color[] COLOURS = {new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c),
            new Color(0xff7f0e)};

    private static XYPlot subPlot(String axisLabel, List<Comparison> comparisons, Figure figure) {
        XYSeriesCollection data = new XYSeriesCollection();
        XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
        List<Target> targets = comparisons.stream().flatMap(c -> c.targets().stream()).distinct().sorted().toList();
        for (Target target : targets) {
            XYSeries series = new XYSeries(target.label());
            for (Comparison c : comparisons) {
                addIfKnown(series, c.clients(), figure.of(c, target));
            }
            int index = data.getSeriesCount();
            data.addSeries(series);
            renderer.setSeriesPaint(index, COLOURS[target.ordinal() % COLOURS.length]);
            renderer.setSeriesStroke(index, new BasicStroke(2f));
        }
        NumberAxis valueAxis = new NumberAxis(axisLabel);
        valueAxis.setAutoRangeIncludesZero(true);
        XYPlot plot = new XYPlot(data, null, valueAxis, renderer);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
        return plot;
    }

    private static void addIfKnown(XYSeries series, int x, double y) {
        if (!Double.isNaN(y)) {
            series.add(x, y);
        }
    }
}
