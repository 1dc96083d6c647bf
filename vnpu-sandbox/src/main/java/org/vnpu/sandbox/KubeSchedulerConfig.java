package org.vnpu.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Set;
import java.util.TreeSet;

/**
 * What of a {@code KubeSchedulerConfiguration} the sandbox's kube-scheduler cycle follows: the
 * extender's weight and the resources it manages, and which host-resource scores the profile keeps.
 *
 * @param extenderWeight the extender's {@code weight}
 * @param ignoredResources {@code managedResources} with {@code ignoredByScheduler: true}, which
 *     {@code NodeResourcesFit} does not check
 * @param disabledScores score plugins the profile disables
 * @param mutualTls whether the extender has a {@code tlsConfig}: the cycle then calls it over TLS
 *     with the client certificate, as kube-scheduler does with the chart's
 */
public record KubeSchedulerConfig(
    int extenderWeight,
    Set<String> ignoredResources,
    Set<String> disabledScores,
    boolean mutualTls) {

  /** The host-resource score plugins the cycle computes. */
  static final String LEAST_ALLOCATED = "NodeResourcesFit";

  static final String BALANCED = "NodeResourcesBalancedAllocation";

  public KubeSchedulerConfig {
    ignoredResources = Set.copyOf(ignoredResources);
    disabledScores = Set.copyOf(disabledScores);
  }

  /** The configuration the chart ships. */
  public static KubeSchedulerConfig shipped() {
    return parse(ChartFiles.read("kube-scheduler-config.yaml"));
  }

  /** The configuration the chart ships with {@code dra.enabled}: its extender only ranks. */
  public static KubeSchedulerConfig shippedForDra() {
    return parse(ChartFiles.read("kube-scheduler-config-dra.yaml"));
  }

  /** Reads a {@code KubeSchedulerConfiguration} with one profile and the vNPU extender. */
  public static KubeSchedulerConfig parse(JsonNode config) {
    JsonNode extender = config.path("extenders").path(0);
    Set<String> ignored = new TreeSet<>();
    for (JsonNode managed : extender.path("managedResources")) {
      if (managed.path("ignoredByScheduler").asBoolean()) {
        ignored.add(managed.path("name").asText());
      }
    }
    Set<String> disabled = new TreeSet<>();
    for (JsonNode plugin :
        config.path("profiles").path(0).path("plugins").path("score").path("disabled")) {
      disabled.add(plugin.path("name").asText());
    }
    // kube-scheduler pkg/scheduler/apis/config/v1/defaults.go: an extender's weight defaults to 1.
    JsonNode tls = extender.path("tlsConfig");
    return new KubeSchedulerConfig(
        extender.path("weight").asInt(1), ignored, disabled, !tls.isMissingNode() && !tls.isNull());
  }

  boolean scores(String plugin) {
    return !disabledScores.contains(plugin);
  }
}
