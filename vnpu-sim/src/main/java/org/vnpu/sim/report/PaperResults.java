package org.vnpu.sim.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.vnpu.core.input.InvalidInputException;

/**
 * The FGD paper's per-seed results ({@code analysis_allo_discrete.csv} of its artifact): the
 * unallocated GPU % at arrived = 0, 1, ... 130 % per workload and policy, over seeds 42..51 at tune
 * 1.3.
 */
public final class PaperResults {

  public static final String FILE = "analysis_allo_discrete.csv";

  /** Per workload, per policy, per seed: unallocated % at arrived = 0, 1, ... % of capacity. */
  private final Map<String, Map<String, List<double[]>>> byWorkload;

  private static final int AT_100 = 100;

  private PaperResults(Map<String, Map<String, List<double[]>>> byWorkload) {
    this.byWorkload = byWorkload;
  }

  /** The arrived % a header column names, or -1 for the columns that name none. */
  private static int arrivedPercent(String column) {
    return column.matches("[0-9]{1,3}") ? Integer.parseInt(column) : -1;
  }

  /** Reads {@value #FILE} from {@code directory}. */
  public static PaperResults read(Path directory) {
    Path file = directory.resolve(FILE);
    Map<String, Map<String, List<double[]>>> results = new HashMap<>();
    try (Stream<String> lines = Files.lines(file)) {
      List<String> all = lines.toList();
      List<String> header = List.of(all.get(0).split(","));
      int workload = header.indexOf("workload");
      int policy = header.indexOf("sc_policy");
      int[] arrived = header.stream().mapToInt(PaperResults::arrivedPercent).toArray();
      int last = Arrays.stream(arrived).max().orElse(-1);
      if (workload < 0 || policy < 0 || last < AT_100) {
        throw new InvalidInputException(file + ": header lacks workload, sc_policy or 100");
      }
      for (String line : all.subList(1, all.size())) {
        String[] cells = line.split(",", -1);
        double[] curve = new double[last + 1];
        Arrays.fill(curve, Double.NaN);
        for (int column = 0; column < arrived.length; column++) {
          if (arrived[column] >= 0) {
            curve[arrived[column]] = 100 - Double.parseDouble(cells[column]);
          }
        }
        results
            .computeIfAbsent(cells[workload], w -> new HashMap<>())
            .computeIfAbsent(cells[policy], p -> new ArrayList<>())
            .add(curve);
      }
      return new PaperResults(results);
    } catch (IOException e) {
      throw new InvalidInputException(file + ": cannot be read: " + e.getMessage(), e);
    } catch (NumberFormatException | ArrayIndexOutOfBoundsException e) {
      throw new InvalidInputException(file + ": a row is not a curve of numbers: " + e, e);
    }
  }

  /** The paper's unallocated % at arrived = 100 % for {@code workload} and {@code policy}. */
  public Optional<Spread> unallocatedAt100(String workload, String policy) {
    return curves(workload, policy)
        .map(curves -> Spread.of(curves.stream().map(c -> c[AT_100]).toList()));
  }

  /**
   * The paper's unallocated %, the mean over its seeds, at arrived = 0, 1, ... % of capacity, for
   * {@code workload} and {@code policy}; NaN where the file has no column.
   */
  public Optional<double[]> meanUnallocated(String workload, String policy) {
    return curves(workload, policy)
        .map(
            curves -> {
              double[] mean = new double[curves.get(0).length];
              curves.forEach(c -> Arrays.setAll(mean, i -> mean[i] + c[i] / curves.size()));
              return mean;
            });
  }

  private Optional<List<double[]>> curves(String workload, String policy) {
    return Optional.ofNullable(byWorkload.getOrDefault(workload, Map.of()).get(policy));
  }

  public boolean knows(String workload) {
    return byWorkload.containsKey(workload);
  }
}
