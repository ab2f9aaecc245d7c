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
 * number of producers, direct and through the proxy, medians of the rounds.
 */
public final class ScalingChart {

    private ScalingChart() {
    }

    public static void write(Path png, String title, List<Comparison> scaling) {
        List<Comparison> sorted = scaling.stream().sorted(Comparator.comparingInt(Comparison::clients)).toList();
        NumberAxis producers = new NumberAxis("producers");
        producers.setStandardTickUnits(NumberAxis.createIntegerTickUnits());
        CombinedDomainXYPlot plot = new CombinedDomainXYPlot(producers);
        XYPlot throughput = subPlot("throughput MB/s", sorted, c -> c.throughput(Target.DIRECT).median(),
                c -> c.throughput(Target.PROXY).median());
        plot.add(throughput, 1);
        plot.setFixedLegendItems(throughput.getLegendItems());
        plot.add(subPlot("p99 latency ms", sorted, c -> c.latency(Target.DIRECT, 99).median(),
                c -> c.latency(Target.PROXY, 99).median()), 1);
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
        double of(Comparison comparison);
    }

    private static XYPlot subPlot(String axisLabel, List<Comparison> comparisons, Figure direct, Figure proxy) {
        XYSeries directSeries = new XYSeries("direct");
        XYSeries proxySeries = new XYSeries("proxy");
        for (Comparison c : comparisons) {
            addIfKnown(directSeries, c.clients(), direct.of(c));
            addIfKnown(proxySeries, c.clients(), proxy.of(c));
        }
        XYSeriesCollection data = new XYSeriesCollection();
        data.addSeries(directSeries);
        data.addSeries(proxySeries);
        NumberAxis valueAxis = new NumberAxis(axisLabel);
        valueAxis.setAutoRangeIncludesZero(true);
        XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
        renderer.setSeriesPaint(0, new Color(0x1f77b4));
        renderer.setSeriesPaint(1, new Color(0xd62728));
        renderer.setSeriesStroke(0, new BasicStroke(2f));
        renderer.setSeriesStroke(1, new BasicStroke(2f));
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
