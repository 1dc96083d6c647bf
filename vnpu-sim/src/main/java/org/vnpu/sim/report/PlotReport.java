package org.vnpu.sim.report;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;
import org.vnpu.sim.experiment.RunResult;
import org.vnpu.sim.experiment.Sample;

/**
 * A PNG of unallocated compute against arrived compute (both in % of capacity), one line per
 * policy, the mean over seeds in 1 % bins: the paper's Fig. 9(a).
 */
public final class PlotReport {

  private PlotReport() {}

  public static void write(Path png, String title, List<RunResult> results) throws IOException {
    XYChart chart =
        new XYChartBuilder()
            .width(1000)
            .height(620)
            .title(title)
            .xAxisTitle("Arrived workload (% of cluster compute)")
            .yAxisTitle("Unallocated compute (%)")
            .build();
    chart.getStyler().setMarkerSize(0);
    chart.getStyler().setYAxisMin(0.0);
    for (Map.Entry<String, TreeMap<Long, double[]>> policy : binned(results).entrySet()) {
      List<Double> x = new ArrayList<>();
      List<Double> y = new ArrayList<>();
      policy
          .getValue()
          .forEach(
              (bin, sum) -> {
                x.add((double) bin);
                y.add(sum[0] / sum[1]);
              });
      XYSeries series = chart.addSeries(policy.getKey(), x, y);
      series.setMarker(SeriesMarkers.NONE);
    }
    String name =
        png.toString().endsWith(".png")
            ? png.toString().substring(0, png.toString().length() - 4)
            : png.toString();
    BitmapEncoder.saveBitmap(chart, name, BitmapEncoder.BitmapFormat.PNG);
  }

  /** Per policy, per 1 % bin of arrived compute: sum of unallocated % of each run's last sample. */
  private static Map<String, TreeMap<Long, double[]>> binned(List<RunResult> results) {
    Map<String, TreeMap<Long, double[]>> byPolicy = new LinkedHashMap<>();
    for (RunResult run : results) {
      Map<Long, Sample> lastPerBin = new TreeMap<>();
      run.samples().forEach(s -> lastPerBin.put(Math.round(s.arrivedPercent()), s));
      TreeMap<Long, double[]> bins = byPolicy.computeIfAbsent(run.policy(), p -> new TreeMap<>());
      lastPerBin.forEach(
          (bin, sample) -> {
            double[] sum = bins.computeIfAbsent(bin, b -> new double[2]);
            sum[0] += 100 - sample.allocatedPercent();
            sum[1] += 1;
          });
    }
    return byPolicy;
  }
}
