package org.vnpu.sandbox;

import java.util.Map;

/**
 * Discovery ({@code /api}, {@code /api/v1}, {@code /apis}, {@code /apis/coordination.k8s.io/v1}) of
 * the resources the sandbox uses, so that kubectl can look inside.
 */
final class Discovery {

  private Discovery() {}

  /** Discovery documents by path. */
  static final Map<String, String> DOCUMENTS =
      Map.of(
          "/api",
          """
          {"kind": "APIVersions", "versions": ["v1"],
           "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1"}]}
          """,
          "/api/v1",
          resources(
              "v1",
              resource("pods", "pod", "Pod", true, "po"),
              resource("pods/binding", "", "Binding", true, null),
              resource("pods/status", "", "Pod", true, null),
              resource("nodes", "node", "Node", false, "no"),
              resource("nodes/status", "", "Node", false, null),
              resource("events", "event", "Event", true, "ev"),
              resource("namespaces", "namespace", "Namespace", false, "ns")),
          "/apis",
          """
          {"kind": "APIGroupList", "apiVersion": "v1", "groups": [{"name": "coordination.k8s.io",
           "versions": [{"groupVersion": "coordination.k8s.io/v1", "version": "v1"}],
           "preferredVersion": {"groupVersion": "coordination.k8s.io/v1", "version": "v1"}}]}
          """,
          "/apis/coordination.k8s.io/v1",
          resources("coordination.k8s.io/v1", resource("leases", "lease", "Lease", true, null)));

  private static String resources(String groupVersion, String... resources) {
    return "{\"kind\": \"APIResourceList\", \"apiVersion\": \"v1\", \"groupVersion\": \""
        + groupVersion
        + "\", \"resources\": ["
        + String.join(", ", resources)
        + "]}";
  }

  private static String resource(
      String name, String singular, String kind, boolean namespaced, String shortName) {
    return "{\"name\": \""
        + name
        + "\", \"singularName\": \""
        + singular
        + "\", \"namespaced\": "
        + namespaced
        + ", \"kind\": \""
        + kind
        + "\", \"verbs\": [\"create\", \"delete\", \"get\", \"list\", \"patch\", \"update\", \"watch\"]"
        + (shortName == null ? "" : ", \"shortNames\": [\"" + shortName + "\"]")
        + "}";
  }
}
