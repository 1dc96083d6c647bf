package org.vnpu.sim.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.vnpu.core.input.InvalidInputException;

/**
 * The FGD paper's per-seed results ({@code analysis_allo_discrete.csv} of its artifact): the
 * unallocated GPU % at arrived = 100 % per workload and policy, over seeds 42..51 at tune 1.3.
 */
public final class PaperResults {

  public static final String FILE = "analysis_allo_discrete.csv";

  private final Map<String, Map<String, List<Double>>> byWorkload;

  private PaperResults(Map<String, Map<String, List<Double>>> byWorkload) {
    this.byWorkload = byWorkload;
  }

  /** Reads {@value #FILE} from {@code directory}. */
  public static PaperResults read(Path directory) {
    Path file = directory.resolve(FILE);
    Map<String, Map<String, List<Double>>> results = new HashMap<>();
    try (Stream<String> lines = Files.lines(file)) {
      List<String> all = lines.toList();
      List<String> header = List.of(all.get(0).split(","));
      int at100 = header.indexOf("100");
      int workload = header.indexOf("workload");
      int policy = header.indexOf("sc_policy");
      if (at100 < 0 || workload < 0 || policy < 0) {
        throw new InvalidInputException(file + ": header lacks workload, sc_policy or 100");
      }
      for (String line : all.subList(1, all.size())) {
        String[] cells = line.split(",", -1);
        results
            .computeIfAbsent(cells[workload], w -> new HashMap<>())
            .computeIfAbsent(cells[policy], p -> new ArrayList<>())
            .add(100 - Double.parseDouble(cells[at100]));
      }
    } catch (IOException e) {
      throw new InvalidInputException(file + ": cannot be read: " + e.getMessage(), e);
    }
    return new PaperResults(results);
  }

  /** The paper's unallocated % at arrived = 100 % for {@code workload} and {@code policy}. */
  public Optional<Spread> unallocatedAt100(String workload, String policy) {
    return Optional.ofNullable(byWorkload.getOrDefault(workload, Map.of()).get(policy))
        .map(Spread::of);
  }

  public boolean knows(String workload) {
    return byWorkload.containsKey(workload);
  }
}
