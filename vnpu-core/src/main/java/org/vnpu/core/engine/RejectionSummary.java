package org.vnpu.core.engine;

import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * One readable sentence for a pod that fits nowhere, e.g. {@code 0/12 nodes fit: 7 not enough
 * device memory (need 8 GiB, largest free 6 GiB), 5 split mode is hard}. Rejections with the same
 * reason are counted together and report the best any of those nodes offers.
 */
public final class RejectionSummary {

  private RejectionSummary() {}

  /** The sentence for {@code nodes} candidates of which {@code rejections} did not fit. */
  public static String of(int nodes, Map<String, Rejection> rejections) {
    if (nodes == 0) {
      return "0/0 nodes fit: no vNPU node is known";
    }
    record Reason(RejectKind kind, String detail, long need) {}
    Map<Reason, Integer> counts = new LinkedHashMap<>();
    Map<Reason, Long> best = new LinkedHashMap<>();
    for (Rejection rejection : rejections.values()) {
      Reason reason = new Reason(rejection.kind(), rejection.detail(), rejection.need());
      counts.merge(reason, 1, Integer::sum);
      best.merge(reason, rejection.have(), Math::max);
    }
    return (nodes - rejections.size())
        + "/"
        + nodes
        + " nodes fit: "
        + counts.entrySet().stream()
            .sorted(
                Comparator.<Map.Entry<Reason, Integer>>comparingInt(Map.Entry::getValue)
                    .reversed()
                    .thenComparing(e -> e.getKey().kind()))
            .map(
                e -> {
                  Reason r = e.getKey();
                  return e.getValue()
                      + " "
                      + new Rejection(r.kind(), r.detail(), r.need(), best.get(r)).phrase();
                })
            .collect(Collectors.joining(", "));
  }
}
