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
          "vnpu-device-plugin-locks",
          Map.of("leases", Set.of("get", "patch")),
          "vnpu-exporter",
          Map.of("nodes", Set.of("get"), "pods", Set.of("list", "watch")),
          "vnpu-scheduler",
          Map.of(
              "nodes", Set.of("get", "list", "watch"),
              "pods", Set.of("get", "list", "watch", "patch"),
              "bindings", Set.of("create"),
              "events", Set.of("create")),
          "vnpu-scheduler-leader",
          Map.of(
              "leases", Set.of("get", "create", "update", "patch"),
              "secrets", Set.of("create", "get", "update"),
              "configmaps", Set.of("create", "get", "update")),
          "vnpu-scheduler-locks",
          Map.of("leases", Set.of("get", "list", "watch", "create", "patch")));

  /**
   * The namespace of each Role, by role name; {@link #RELEASE} stands for the release's. The other
   * roles are ClusterRoles.
   */
  static final Map<String, String> NAMESPACES =
      Map.of(
          "vnpu-scheduler-leader", "<release>",
          "vnpu-scheduler-locks", "vnpu-node-locks",
          "vnpu-device-plugin-locks", "vnpu-node-locks");

  static final String RELEASE = "<release>";

  private ChartRbac() {}

  /**
   * Whether any of {@code roles} lets its component do {@code verb} on {@code resource} in {@code
   * namespace} (null: cluster-wide, or in every namespace), the release's being {@code release}.
   */
  static boolean allows(
      Set<String> roles, String namespace, String release, String resource, String verb) {
    return roles.stream()
        .filter(role -> !NAMESPACES.containsKey(role) || inNamespace(role, namespace, release))
        .anyMatch(role -> GRANTED.get(role).getOrDefault(resource, Set.of()).contains(verb));
  }

  private static boolean inNamespace(String role, String namespace, String release) {
    String of = NAMESPACES.get(role);
    return (RELEASE.equals(of) ? release : of).equals(namespace);
  }
}
