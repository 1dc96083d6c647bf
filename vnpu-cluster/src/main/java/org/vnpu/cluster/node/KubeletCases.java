package org.vnpu.cluster.node;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.grpc.ManagedChannel;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.vnpu.api.ResourceNames;
import org.vnpu.deviceplugin.kubelet.AllocateLog;
import org.vnpu.kubelet.UnixSockets;
import org.vnpu.kubelet.podresources.v1.ListPodResourcesRequest;
import org.vnpu.kubelet.podresources.v1.PodResources;
import org.vnpu.kubelet.podresources.v1.PodResourcesListerGrpc;

/**
 * The kubelet agreement's cases, run one after the other against one {@link KubeletSide}: each
 * case's pod, what the plugin was asked and what the kubelet listed, put in words by {@link
 * KubeletObservations}.
 */
final class KubeletCases {

  private static final Duration SETTLED = Duration.ofMinutes(3);
  private static final Duration LOGGED = Duration.ofSeconds(2);
  private static final Set<String> SETTLED_PHASES = Set.of("Running", "Failed", "Succeeded");

  private final KubeletSide side;
  private final NodePods pods;

  KubeletCases(KubeletSide side, NodeHardware hardware) {
    this.side = side;
    this.pods = new NodePods(side.client(), hardware);
  }

  /** Per case, per property, what the kubelet did; the node's pods are deleted before and after. */
  Map<String, Map<String, String>> run() throws IOException, InterruptedException {
    pods.deleteAll();
    Map<String, Map<String, String>> seen = new LinkedHashMap<>();
    seen.put(
        "shared chip, 30 % / 8 GiB",
        observe(pods.pod("agree-shared", NodePods.shared(30, 8), 1024)));
    seen.put(
        "init and app container, 20 % / 4 GiB each",
        observe(NodePods.withInit(pods.pod("agree-staged", NodePods.shared(20, 4), 1024))));
    seen.put("the shared pod across a kubelet restart", acrossRestart("agree-shared"));
    seen.put(
        "bound by spec.nodeName, past the extender",
        observe(bound(pods.pod("agree-unscheduled", NodePods.shared(10, 2), 1024))));
    seen.put(
        "200 GiB of vnpu-memory, bound by spec.nodeName",
        observe(
            bound(
                pods.pod("agree-oversized", Map.of(ResourceNames.VNPU_MEMORY_GIB, "200"), 1024))));
    pods.deleteAll();
    return seen;
  }

  /**
   * The running pod {@code name} across a restart of the kubelet: whether it kept running with the
   * same devices, and whether the restarted kubelet called Allocate for it.
   */
  private Map<String, String> acrossRestart(String name) throws IOException, InterruptedException {
    Pod before = side.client().pods().inNamespace(NodePods.NAMESPACE).withName(name).get();
    String devicesBefore = listed(before).map(KubeletObservations::devices).orElse("not listed");
    int mark = side.allocateMark();
    side.restartKubelet();
    Pod after =
        pods.await(name, "running", p -> "Running".equals(p.getStatus().getPhase()), SETTLED);
    Map<String, String> seen = new LinkedHashMap<>();
    seen.put(
        "outcome",
        after.getStatus().getPhase()
            + ", restarts "
            + after.getStatus().getContainerStatuses().stream()
                .mapToInt(status -> status.getRestartCount())
                .sum());
    List<AllocateLog.Call> calls = side.allocateCallsSince(mark);
    seen.put("Allocate calls", calls.isEmpty() ? "none" : calls.size() + " calls");
    // A restarted kubelet lists a pod once its pod manager has it again from the API server.
    long deadline = System.nanoTime() + SETTLED.toNanos();
    while (listed(after).isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(500);
    }
    String devicesAfter = listed(after).map(KubeletObservations::devices).orElse("not listed");
    seen.put(
        "pod-resources List",
        devicesAfter.equals(devicesBefore) ? "as before: " + devicesAfter : devicesAfter);
    return seen;
  }

  private static PodBuilder bound(PodBuilder pod) {
    return pod.editSpec().withNodeName(RealNodeScenario.NODE).endSpec();
  }

  private Map<String, String> observe(PodBuilder builder) throws InterruptedException {
    int mark = side.allocateMark();
    String name = pods.create(builder).getMetadata().getName();
    Pod pod =
        pods.await(
            name,
            "running or failed",
            p -> p.getStatus() != null && SETTLED_PHASES.contains(p.getStatus().getPhase()),
            SETTLED);
    // The plugin logs a call before it answers; its log file may trail the pod's status.
    Thread.sleep(LOGGED.toMillis());
    List<AllocateLog.Call> calls = side.allocateCallsSince(mark);
    return KubeletObservations.of(pod, calls, listed(pod));
  }

  private Optional<PodResources> listed(Pod pod) {
    ManagedChannel channel = UnixSockets.dial(side.podResourcesSocket());
    try {
      return PodResourcesListerGrpc.newBlockingStub(channel)
          .withDeadlineAfter(10, TimeUnit.SECONDS)
          .list(ListPodResourcesRequest.getDefaultInstance())
          .getPodResourcesList()
          .stream()
          .filter(
              listed ->
                  listed.getNamespace().equals(pod.getMetadata().getNamespace())
                      && listed.getName().equals(pod.getMetadata().getName()))
          .findFirst();
    } finally {
      channel.shutdownNow();
    }
  }
}
