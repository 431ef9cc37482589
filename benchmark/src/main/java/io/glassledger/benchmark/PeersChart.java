package io.glassledger.benchmark;

import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler.LegendPosition;

/** The chart of {@code benchmark/run peers}: GlassLedger's rate over immudb's by workload, beside each target. */
final class PeersChart {
    /** One workload: its label, the measured ratio and its target (NaN: none). */
    record Bar(String label, double ratio, double target) {
    }

    private PeersChart() {
    }

    static void write(List<Bar> bars, Path png) throws IOException {
        System.setProperty("java.awt.headless", "true");
        CategoryChart chart = new CategoryChartBuilder().width(800).height(500)
                .title("GlassLedger over immudb v1.11.1, same machine (rate ratio)").xAxisTitle("workload (clients)")
                .yAxisTitle("GlassLedger rate / immudb rate").build();
        chart.getStyler().setLegendPosition(LegendPosition.InsideNW);
        chart.getStyler().setChartBackgroundColor(Color.WHITE);
        chart.getStyler().setPlotGridVerticalLinesVisible(false);
        chart.getStyler().setYAxisMin(0.0);
        chart.getStyler().setYAxisDecimalPattern("#,##0.##");
        chart.getStyler().setSeriesColors(new Color[] {new Color(0x2b6cb0), new Color(0xbbbbbb)});
        List<String> labels = bars.stream().map(Bar::label).toList();
        chart.addSeries("measured", labels, bars.stream().map(Bar::ratio).toList());
        chart.addSeries("target", labels, bars.stream().map(b -> Double.isNaN(b.target()) ? 0.0 : b.target())
                .toList());
        Path dir = png.toAbsolutePath().getParent();
        if (dir != null) {
            Files.createDirectories(dir);
        }
        BitmapEncoder.saveBitmap(chart, png.toString(), BitmapEncoder.BitmapFormat.PNG);
    }
}
