package org.vnpu.cli;

import java.util.Map;
import java.util.Set;

/**
 * What the chart's Roles grant each component, by resource: {@code HelmChartTest} checks the
 * rendered chart grants exactly this, {@code RbacAuditTest} that the components ask for nothing
 * more.
 */
final class ChartRbac {

  /** Verbs by resource, by role name (release prefix dropped). */
  static final Map<String, Map<String, Set<String>>> GRANTED =
      Map.of(
          "vnpu-device-plugin",
          Map.of("nodes", Set.of("get", "patch"), "pods", Set.of("get", "list", "patch")),
          "vnpu-exporter",
          Map.of("nodes", Set.of("get"), "pods", Set.of("list", "watch")),
          "vnpu-scheduler",
          Map.of(
              "nodes", Set.of("get", "list", "watch", "patch"),
              "pods", Set.of("get", "list", "watch", "patch"),
              "bindings", Set.of("create"),
              "events", Set.of("create")),
          "vnpu-scheduler-leader",
          Map.of(
              "leases", Set.of("get", "create", "update", "patch"),
              "secrets", Set.of("create", "get", "update"),
              "configmaps", Set.of("create", "get", "update")));

  private ChartRbac() {}

  /** Whether any of {@code roles} lets its component do {@code verb} on {@code resource}. */
  static boolean allows(Set<String> roles, String resource, String verb) {
    return roles.stream()
        .anyMatch(role -> GRANTED.get(role).getOrDefault(resource, Set.of()).contains(verb));
  }
}
