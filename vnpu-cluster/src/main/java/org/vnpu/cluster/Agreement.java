package org.vnpu.cluster;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.vnpu.sandbox.Scenario;

/**
 * How far the embedded demo's emulators agree with the real control plane, pod by pod over one
 * scenario run on each: where both placed a pod, on which node and chips; where neither did, both
 * say so (each with its reason); anything else is a disagreement. A chip is compared as the policy
 * decides it; a pod the scenario places anywhere may land elsewhere when the pods before it were
 * bound in another order, which the table shows too.
 */
public final class Agreement {

  private Agreement() {}

  /**
   * One pod: what each run decided, and whether they agree.
   *
   * @param batch the order of a batch decides its chip
   */
  public record Row(String pod, String embedded, String real, boolean batch, boolean agrees) {}

  /** Compares the two runs' reports. */
  public static List<Row> of(Scenario.Report embedded, Scenario.Report real) {
    Map<String, String> left = decisions(embedded);
    Map<String, String> right = decisions(real);
    Set<String> pods = new LinkedHashSet<>(left.keySet());
    pods.addAll(right.keySet());
    List<Row> rows = new ArrayList<>();
    for (String pod : pods) {
      String a = left.getOrDefault(pod, "not run");
      String b = right.getOrDefault(pod, "not run");
      boolean bothPending = a.startsWith(PENDING) && b.startsWith(PENDING);
      boolean batch = Scenario.orderDecides(pod);
      boolean bothPlaced = !a.startsWith(PENDING) && !b.startsWith(PENDING) && !a.equals("not run");
      boolean agrees = a.equals(b) || bothPending || (batch && bothPlaced && !b.equals("not run"));
      rows.add(new Row(pod, a, b, batch, agrees));
    }
    return rows;
  }

  private static final String PENDING = "pending: ";

  /** Per pod: {@code node chips [slices]} when placed, {@code pending: reason} when not. */
  private static Map<String, String> decisions(Scenario.Report report) {
    Map<String, List<Scenario.Row>> placed =
        report.placements().stream()
            .collect(Collectors.groupingBy(Scenario.Row::pod, TreeMap::new, Collectors.toList()));
    Map<String, String> decisions = new TreeMap<>();
    placed.forEach(
        (pod, vnpus) ->
            decisions.put(
                pod,
                vnpus.get(0).node()
                    + " chip "
                    + vnpus.stream()
                        .map(row -> Integer.toString(row.chip()))
                        .collect(Collectors.joining(","))
                    + " "
                    + vnpus.get(0).slice()));
    report.unfit().forEach(unfit -> decisions.put(unfit.pod(), PENDING + unfit.reason()));
    return decisions;
  }

  /** A Markdown table of {@code rows} and the share that agree. */
  public static String markdown(List<Row> rows) {
    StringBuilder table =
        new StringBuilder("| pod | embedded | real | agree |\n|---|---|---|---|\n");
    for (Row row : rows) {
      table
          .append("| ")
          .append(row.pod())
          .append(row.batch() ? " (batch)" : "")
          .append(" | ")
          .append(cell(row.embedded()))
          .append(" | ")
          .append(cell(row.real()))
          .append(" | ")
          .append(row.agrees() ? "yes" : "**no**")
          .append(" |\n");
    }
    long alone = rows.stream().filter(row -> !row.batch()).count();
    long aloneAgreeing = rows.stream().filter(row -> !row.batch() && row.agrees()).count();
    long batch = rows.size() - alone;
    long batchAgreeing = rows.stream().filter(row -> row.batch() && row.agrees()).count();
    table
        .append("\n")
        .append(aloneAgreeing)
        .append(" of ")
        .append(alone)
        .append(" pods decided alone agree on node and chip; ")
        .append(batchAgreeing)
        .append(" of ")
        .append(batch)
        .append(" pods of batches are placed (or left pending) in both\n");
    return table.toString();
  }

  private static String cell(String text) {
    String flat = text.replace("|", "/").replace("\n", " ");
    return flat.length() > 120 ? flat.substring(0, 117) + "..." : flat;
  }
}
