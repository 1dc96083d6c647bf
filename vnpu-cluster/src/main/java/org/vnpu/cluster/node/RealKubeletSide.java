package org.vnpu.cluster.node;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.vnpu.cluster.VnpuRelease;
import org.vnpu.deviceplugin.kubelet.AllocateLog;

/**
 * The real node's kubelet as a {@link KubeletSide}: its pod-resources socket under its root
 * directory, and the Allocate calls as the device plugin's pod logged them.
 */
final class RealKubeletSide implements KubeletSide {

  private final KubernetesClient admin;

  /** What the device plugin logs when it registered with a restarted kubelet. */
  static final String REGISTERED_AGAIN = "serving it again";

  /** What the device plugin logs for each resource it registered, the resource in group 1. */
  private static final Pattern REGISTERED_RESOURCE =
      Pattern.compile("registered (\\S+) with the kubelet");

  private static final Duration REGISTERED = Duration.ofMinutes(3);

  private final ChartPods chart;
  private final RealNode node;

  RealKubeletSide(KubernetesClient admin, ChartPods chart, RealNode node) {
    this.admin = admin;
    this.chart = chart;
    this.node = node;
  }

  @Override
  public String name() {
    return "real kubelet";
  }

  @Override
  public KubernetesClient client() {
    return admin;
  }

  @Override
  public Path podResourcesSocket() {
    return node.kubelet().root().resolve("pod-resources").resolve("kubelet.sock");
  }

  @Override
  public int allocateMark() {
    return calls().size();
  }

  @Override
  public void restartKubelet() throws IOException, InterruptedException {
    List<String> before = registrations();
    long resources = before.stream().distinct().count();
    node.kubelet().restart(admin);
    long deadline = System.nanoTime() + REGISTERED.toNanos();
    while (registrations().size() < before.size() + resources) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "the device plugin did not register its "
                + resources
                + " resources again within "
                + REGISTERED.toSeconds()
                + " s of the kubelet's restart: "
                + registrations().subList(before.size(), registrations().size()));
      }
      Thread.sleep(500);
    }
  }

  /** The resource of each registration with the kubelet, in order, by the device plugin's log. */
  private List<String> registrations() {
    return devicePluginLog()
        .lines()
        .map(REGISTERED_RESOURCE::matcher)
        .filter(Matcher::find)
        .map(matcher -> matcher.group(1))
        .toList();
  }

  @Override
  public List<AllocateLog.Call> allocateCallsSince(int mark) {
    List<AllocateLog.Call> calls = calls();
    return calls.subList(Math.min(mark, calls.size()), calls.size());
  }

  private List<AllocateLog.Call> calls() {
    return devicePluginLog().lines().map(AllocateLog::parse).flatMap(Optional::stream).toList();
  }

  /** The device plugin's log, or "" while the kubelet cannot serve it. */
  String devicePluginLog() {
    try {
      return admin
          .pods()
          .inNamespace(VnpuRelease.NAMESPACE)
          .withName(chart.pod("device-plugin").getMetadata().getName())
          .inContainer("device-plugin")
          .getLog();
    } catch (KubernetesClientException e) {
      return "";
    }
  }
}
