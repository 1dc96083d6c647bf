package org.vnpu.cluster.node;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.grpc.ManagedChannel;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.vnpu.api.ResourceNames;
import org.vnpu.deviceplugin.kubelet.AllocateLog;
import org.vnpu.kubelet.UnixSockets;
import org.vnpu.kubelet.podresources.v1.ContainerDevices;
import org.vnpu.kubelet.podresources.v1.ContainerResources;
import org.vnpu.kubelet.podresources.v1.ListPodResourcesRequest;
import org.vnpu.kubelet.podresources.v1.PodResources;
import org.vnpu.kubelet.podresources.v1.PodResourcesListerGrpc;

/**
 * The kubelet agreement's cases, run one after the other against one {@link KubeletSide}, and what
 * the kubelet did in each, property by property, in words both sides can be compared in: the pod's
 * outcome, the Allocate calls per container, whether an init container's devices were reused, the
 * pod-resources answer, and over how many chips the AI Core IDs were picked.
 */
final class KubeletCases {

  private static final Duration SETTLED = Duration.ofMinutes(3);
  private static final Duration LOGGED = Duration.ofSeconds(2);
  private static final Set<String> SETTLED_PHASES = Set.of("Running", "Failed", "Succeeded");

  private final KubeletSide side;
  private final NodePods pods;
  private final List<String> created = new ArrayList<>();

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
    String devicesBefore = listed(before).map(KubeletCases::devices).orElse("not listed");
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
    String devicesAfter = listed(after).map(KubeletCases::devices).orElse("not listed");
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
    Optional<PodResources> listed = listed(pod);
    Map<String, String> seen = new LinkedHashMap<>();
    seen.put("outcome", outcome(pod));
    seen.put("Allocate calls", calls(pod, calls));
    if (!pod.getSpec().getInitContainers().isEmpty()) {
      seen.put("init container's IDs reused by the app container", reused(pod, calls));
    }
    seen.put("pod-resources List", listed.map(KubeletCases::devices).orElse("not listed"));
    listed
        .flatMap(KubeletCases::coreIds)
        .ifPresent(ids -> seen.put("chips the AI Core IDs were picked on", chips(ids)));
    return seen;
  }

  private static String outcome(Pod pod) {
    String phase = pod.getStatus().getPhase();
    if (!"Failed".equals(phase)) {
      return phase;
    }
    String message = pod.getStatus().getMessage() == null ? "" : pod.getStatus().getMessage();
    return phase
        + " "
        + pod.getStatus().getReason()
        + ": "
        + message.replace(pod.getMetadata().getUid(), "<uid>");
  }

  /**
   * The calls grouped by container in the kubelet's order (init containers first), each container's
   * sorted by resource, for the order among one container's resources is Go's map order; a pod
   * refused on the way shows only its last call.
   */
  private static String calls(Pod pod, List<AllocateLog.Call> calls) {
    if (!"Running".equals(pod.getStatus().getPhase())) {
      return calls.isEmpty()
          ? "none"
          : "the last is " + calls.get(calls.size() - 1).resource() + "'s";
    }
    List<String> perContainer = new ArrayList<>();
    int next = 0;
    for (Container container : containers(pod)) {
      int count = container.getResources().getLimits().size();
      List<AllocateLog.Call> own = calls.subList(next, Math.min(calls.size(), next + count));
      next += own.size();
      perContainer.add(
          container.getName()
              + ": "
              + own.stream()
                  .map(call -> shortName(call.resource()) + " " + count(call))
                  .sorted()
                  .collect(Collectors.joining(", ")));
    }
    if (next < calls.size()) {
      perContainer.add((calls.size() - next) + " more");
    }
    return String.join("; ", perContainer);
  }

  /** Whether each resource's call for the app container carried the init container's IDs. */
  private static String reused(Pod pod, List<AllocateLog.Call> calls) {
    int initCalls = pod.getSpec().getInitContainers().get(0).getResources().getLimits().size();
    if (calls.size() != 2 * initCalls) {
      return "cannot tell from " + calls.size() + " calls";
    }
    Map<String, String> init = shown(calls.subList(0, initCalls));
    Map<String, String> app = shown(calls.subList(initCalls, calls.size()));
    List<String> reused =
        init.keySet().stream()
            .filter(r -> init.get(r).equals(app.get(r)))
            .map(KubeletCases::shortName)
            .toList();
    return reused.size() == init.size() ? "every resource's" : "only " + reused;
  }

  private static Map<String, String> shown(List<AllocateLog.Call> calls) {
    Map<String, String> shown = new TreeMap<>();
    calls.forEach(call -> shown.put(call.resource(), String.join(" ", call.shownPerContainer())));
    return shown;
  }

  private static List<Container> containers(Pod pod) {
    List<Container> containers = new ArrayList<>(pod.getSpec().getInitContainers());
    containers.addAll(pod.getSpec().getContainers());
    return containers;
  }

  private static int count(AllocateLog.Call call) {
    return call.shownPerContainer().stream().mapToInt(AllocateLog::count).sum();
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

  /**
   * Per container, per resource, how many IDs the kubelet listed and in how many entries (the real
   * kubelet lists one device per {@code ContainerDevices}).
   */
  private static String devices(PodResources listed) {
    return listed.getContainersList().stream()
        .map(
            container ->
                container.getName()
                    + ": "
                    + container.getDevicesList().stream()
                        .collect(
                            Collectors.groupingBy(
                                ContainerDevices::getResourceName,
                                TreeMap::new,
                                Collectors.toList()))
                        .entrySet()
                        .stream()
                        .map(
                            resource ->
                                shortName(resource.getKey())
                                    + " "
                                    + resource.getValue().stream()
                                        .mapToInt(ContainerDevices::getDeviceIdsCount)
                                        .sum()
                                    + " IDs in "
                                    + resource.getValue().size()
                                    + " entries")
                        .collect(Collectors.joining(", ")))
        .collect(Collectors.joining("; "));
  }

  private static Optional<List<String>> coreIds(PodResources listed) {
    List<String> ids =
        listed.getContainersList().stream()
            .map(ContainerResources::getDevicesList)
            .flatMap(List::stream)
            .filter(devices -> devices.getResourceName().equals(ResourceNames.VNPU_CORES))
            .flatMap(devices -> devices.getDeviceIdsList().stream())
            .toList();
    return ids.isEmpty() ? Optional.empty() : Optional.of(ids);
  }

  /** How many chips the IDs name: an ID is {@code <die ID>-<unit>} (DeviceIds). */
  private static String chips(List<String> ids) {
    long chips = ids.stream().map(id -> id.substring(0, id.lastIndexOf('-'))).distinct().count();
    return chips + (chips == 1 ? " chip" : " chips");
  }

  private static String shortName(String resource) {
    return resource.substring(resource.indexOf('/') + 1);
  }
}
