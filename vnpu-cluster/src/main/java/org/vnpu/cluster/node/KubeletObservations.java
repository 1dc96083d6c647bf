package org.vnpu.cluster.node;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.vnpu.api.ResourceNames;
import org.vnpu.deviceplugin.kubelet.AllocateLog;
import org.vnpu.kubelet.podresources.v1.ContainerDevices;
import org.vnpu.kubelet.podresources.v1.ContainerResources;
import org.vnpu.kubelet.podresources.v1.PodResources;

/**
 * What a kubelet did with one of the agreement's pods ({@link KubeletCases}), in words both
 * kubelets can be compared in: the pod's outcome, the Allocate calls per container, whether an init
 * container's devices were reused, the pod-resources answer, and over how many chips the AI Core
 * IDs were picked.
 */
final class KubeletObservations {

  private KubeletObservations() {}

  /**
   * Per property, what the kubelet did with {@code pod}, given the Allocate calls the plugin
   * received for it and the pod-resources entry the kubelet listed for it, if any.
   */
  static Map<String, String> of(
      Pod pod, List<AllocateLog.Call> calls, Optional<PodResources> listed) {
    Map<String, String> seen = new LinkedHashMap<>();
    seen.put("outcome", outcome(pod));
    seen.put("Allocate calls", calls(pod, calls));
    if (!pod.getSpec().getInitContainers().isEmpty()) {
      seen.put("init container's IDs reused by the app container", reused(pod, calls));
    }
    seen.put("pod-resources List", listed.map(KubeletObservations::devices).orElse("not listed"));
    listed
        .flatMap(KubeletObservations::coreIds)
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
            .map(KubeletObservations::shortName)
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

  /**
   * Per container, per resource, how many IDs the kubelet listed and in how many entries (the real
   * kubelet lists one device per {@code ContainerDevices}).
   */
  static String devices(PodResources listed) {
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
