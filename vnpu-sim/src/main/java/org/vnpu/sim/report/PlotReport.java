package org.vnpu.sim.report;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.imageio.ImageIO;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;
import org.vnpu.sim.experiment.RunResult;
import org.vnpu.sim.experiment.Sample;

/**
 * A PNG of unallocated compute against arrived compute (both in % of capacity), one line per
 * policy, the mean over seeds in 1 % bins: the paper's Fig. 9(a). Below the whole run, the region
 * that decides (arrived {@value #ZOOM_FROM}–{@value #ZOOM_TO} %) again, its y-axis fitted to the
 * curves there. Every series has its own colour and dash; the paper's published FGD mean, when
 * given, is a thick black reference line.
 */
public final class PlotReport {

  static final int ZOOM_FROM = 85;
  static final int ZOOM_TO = 130;
  private static final int WIDTH = 1000;
  private static final int PANEL_HEIGHT = 520;

  /** Distinct colours, dark enough to read on white; series take them in turn. */
  private static final Color[] COLOURS = {
    new Color(0x1f77b4),
    new Color(0xd62728),
    new Color(0x2ca02c),
    new Color(0xff7f0e),
    new Color(0x9467bd),
    new Color(0x8c564b),
    new Color(0xe377c2),
    new Color(0x17becf),
    new Color(0xbcbd22),
    new Color(0x7f7f7f),
    new Color(0x393b79),
    new Color(0x637939)
  };

  /** Dash patterns, taken in turn with a stride so that neighbours differ in both. */
  private static final float[][] DASHES = {
    null, {10f, 5f}, {2f, 4f}, {12f, 4f, 2f, 4f}, {6f, 6f}, {16f, 4f, 4f, 4f, 4f, 4f}
  };

  /**
   * The published curve a plot is drawn against.
   *
   * @param label its legend entry
   * @param unallocated unallocated % at arrived = 0, 1, ... % of capacity
   */
  public record Reference(String label, double[] unallocated) {}

  private PlotReport() {}

  public static void write(Path png, String title, List<RunResult> results) throws IOException {
    write(png, title, results, null);
  }

  /** Writes the plot of {@code results}, with {@code reference} drawn when not null. */
  public static void write(Path png, String title, List<RunResult> results, Reference reference)
      throws IOException {
    Map<String, TreeMap<Long, Double>> curves = means(results);
    XYChart whole = chart(title, curves, reference, 0, Integer.MAX_VALUE);
    whole.getStyler().setYAxisMin(0.0);
    XYChart zoom =
        chart(
            title + ", arrived " + ZOOM_FROM + "–" + ZOOM_TO + " %",
            curves,
            reference,
            ZOOM_FROM,
            ZOOM_TO);
    fitY(zoom, curves, reference);
    BufferedImage image = new BufferedImage(WIDTH, 2 * PANEL_HEIGHT, BufferedImage.TYPE_INT_RGB);
    Graphics2D graphics = image.createGraphics();
    graphics.drawImage(BitmapEncoder.getBufferedImage(whole), 0, 0, null);
    graphics.drawImage(BitmapEncoder.getBufferedImage(zoom), 0, PANEL_HEIGHT, null);
    graphics.dispose();
    ImageIO.write(image, "png", png.toFile());
  }

  private static XYChart chart(
      String title,
      Map<String, TreeMap<Long, Double>> curves,
      Reference reference,
      int from,
      int to) {
    XYChart chart =
        new XYChartBuilder()
            .width(WIDTH)
            .height(PANEL_HEIGHT)
            .title(title)
            .xAxisTitle("Arrived workload (% of cluster compute)")
            .yAxisTitle("Unallocated compute (%)")
            .build();
    chart.getStyler().setMarkerSize(0);
    chart.getStyler().setChartBackgroundColor(Color.WHITE);
    chart.getStyler().setPlotBackgroundColor(Color.WHITE);
    chart.getStyler().setPlotGridLinesColor(new Color(0xdddddd));
    int index = 0;
    for (Map.Entry<String, TreeMap<Long, Double>> curve : curves.entrySet()) {
      List<Double> x = new ArrayList<>();
      List<Double> y = new ArrayList<>();
      curve
          .getValue()
          .subMap((long) from, true, (long) to, true)
          .forEach(
              (arrived, unallocated) -> {
                x.add((double) arrived);
                y.add(unallocated);
              });
      if (!x.isEmpty()) {
        style(chart.addSeries(curve.getKey(), x, y), index);
      }
      index++;
    }
    if (reference != null) {
      List<Double> x = new ArrayList<>();
      List<Double> y = new ArrayList<>();
      double[] values = reference.unallocated();
      for (int arrived = from; arrived <= Math.min(to, values.length - 1); arrived++) {
        if (!Double.isNaN(values[arrived])) {
          x.add((double) arrived);
          y.add(values[arrived]);
        }
      }
      if (x.isEmpty()) {
        return chart;
      }
      XYSeries line = chart.addSeries(reference.label(), x, y);
      line.setMarker(SeriesMarkers.NONE);
      line.setLineColor(Color.BLACK);
      line.setLineStyle(
          new BasicStroke(
              3f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_ROUND, 10f, new float[] {8f, 4f}, 0f));
    }
    return chart;
  }

  private static void style(XYSeries series, int index) {
    series.setMarker(SeriesMarkers.NONE);
    series.setLineColor(COLOURS[index % COLOURS.length]);
    float[] dash = DASHES[(index * 5) % DASHES.length];
    series.setLineStyle(
        new BasicStroke(2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_ROUND, 10f, dash, 0f));
  }

  /** The zoomed panel's y-axis: the curves' least and greatest value there, with a margin. */
  private static void fitY(
      XYChart zoom, Map<String, TreeMap<Long, Double>> curves, Reference reference) {
    double least = Double.POSITIVE_INFINITY;
    double most = Double.NEGATIVE_INFINITY;
    List<Double> values = new ArrayList<>();
    curves
        .values()
        .forEach(
            c -> values.addAll(c.subMap((long) ZOOM_FROM, true, (long) ZOOM_TO, true).values()));
    if (reference != null) {
      for (int a = ZOOM_FROM; a <= Math.min(ZOOM_TO, reference.unallocated().length - 1); a++) {
        if (!Double.isNaN(reference.unallocated()[a])) {
          values.add(reference.unallocated()[a]);
        }
      }
    }
    for (double value : values) {
      least = Math.min(least, value);
      most = Math.max(most, value);
    }
    if (least <= most) {
      double margin = Math.max(0.5, (most - least) * 0.05);
      zoom.getStyler().setYAxisMin(Math.max(0, least - margin));
      zoom.getStyler().setYAxisMax(most + margin);
    }
  }

  /**
   * Per policy, per 1 % bin of arrived compute: the mean unallocated % of each run's last sample.
   */
  private static Map<String, TreeMap<Long, Double>> means(List<RunResult> results) {
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
    Map<String, TreeMap<Long, Double>> means = new LinkedHashMap<>();
    byPolicy.forEach(
        (policy, bins) -> {
          TreeMap<Long, Double> mean = new TreeMap<>();
          bins.forEach((bin, sum) -> mean.put(bin, sum[0] / sum[1]));
          means.put(policy, mean);
        });
    return means;
  }
}
