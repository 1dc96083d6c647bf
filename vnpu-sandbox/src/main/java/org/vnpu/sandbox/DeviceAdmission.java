package org.vnpu.sandbox;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Quantity;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;
import org.vnpu.api.ResourceNames;
import org.vnpu.kubelet.KubeletEmulator;
import org.vnpu.kubelet.PodResourcesEmulator;
import org.vnpu.kubelet.deviceplugin.v1beta1.ContainerAllocateResponse;

/**
 * The kubelet's device manager on a sandbox node: hands the containers of a pod being admitted the
 * devices of their device-plugin resources through the plugins' Allocate, records what each got,
 * and answers the pod-resources API from the records. Its monitor guards the records, taken only to
 * read or write them, so that the pod-resources API answers while a pod is admitted, as the
 * kubelet's does: the device manager calls a plugin's Allocate outside its mutex ({@code
 * pkg/kubelet/cm/devicemanager/manager.go allocateContainerResources}) and {@code GetDevices} reads
 * what it recorded.
 */
final class DeviceAdmission {

  private final KubeletEmulator kubelet;
  private final Map<String, RunningPod> pods;
  private final LongAdder allocateNanos = new LongAdder();

  /**
   * @param pods the node's pods by UID, which the pod runner adds and removes (removals under this
   *     monitor)
   */
  DeviceAdmission(KubeletEmulator kubelet, Map<String, RunningPod> pods) {
    this.kubelet = kubelet;
    this.pods = pods;
  }

  /** Seconds the device plugins took to answer this node's Allocate calls so far. */
  double allocateSeconds() {
    return allocateNanos.sum() / 1e9;
  }

  /**
   * What the kubelet's pod-resources API reports ({@code GetActivePods}): the pods in its pod
   * manager not rejected, finished or deleted, their app containers and the devices the device
   * manager recorded for each. The kubelet adds a pod to its pod manager before it admits it
   * ({@code pkg/kubelet/kubelet.go HandlePodAdditions}: {@code podManager.AddPod}, then {@code
   * allocationManager.AddPod(kl.GetActivePods(), pod)}), and records a container's devices once its
   * Allocate answered, so during an admission the pod is listed with the devices of the containers
   * handed out so far.
   */
  synchronized List<PodResourcesEmulator.ActivePod> activePods() {
    List<PodResourcesEmulator.ActivePod> active = new ArrayList<>();
    for (RunningPod running : pods.values()) {
      if (running.inPodManager && !running.deleted) {
        active.add(
            new PodResourcesEmulator.ActivePod(
                running.pod.getMetadata().getNamespace(),
                running.pod.getMetadata().getName(),
                running.pod.getSpec().getContainers().stream().map(Container::getName).toList(),
                Map.copyOf(running.containerDevices)));
      }
    }
    return active;
  }

  /** Device IDs of {@code resource} held by this node's pods. */
  synchronized Set<String> devicesInUse(String resource) {
    Set<String> taken = new HashSet<>();
    pods.values()
        .forEach(running -> taken.addAll(running.devices.getOrDefault(resource, List.of())));
    return taken;
  }

  /**
   * {@code pkg/kubelet/cm/devicemanager/manager.go Allocate()} and {@code
   * allocateContainerResources()}: per container, init containers first, for each device-plugin
   * resource in its limits, in Go's map order (here shuffled, so no plugin may rely on an order),
   * take that many healthy devices, first from those the pod's earlier init containers hold ({@code
   * devicesToReuse}), then free ones, and call the resource's Allocate. An init container's devices
   * become reusable; an app container's are no longer. The vNPU hand-out is the answer for {@code
   * vnpu-number}; the counted resources answer with nothing.
   */
  Map<Container, ContainerAllocateResponse> allocate(RunningPod running) throws NotAdmitted {
    Map<Container, ContainerAllocateResponse> handouts = new LinkedHashMap<>();
    List<Container> containers = new ArrayList<>(running.pod.getSpec().getInitContainers());
    containers.addAll(running.pod.getSpec().getContainers());
    List<String> registered = kubelet.resources();
    Map<String, Set<String>> reusable = new HashMap<>();
    for (Container container : containers) {
      boolean init = running.pod.getSpec().getInitContainers().contains(container);
      List<Map.Entry<String, Quantity>> limits =
          container.getResources() == null || container.getResources().getLimits() == null
              ? new ArrayList<>()
              : new ArrayList<>(container.getResources().getLimits().entrySet());
      Collections.shuffle(limits);
      ContainerAllocateResponse handout = ContainerAllocateResponse.getDefaultInstance();
      for (Map.Entry<String, Quantity> limit : limits) {
        String resource = limit.getKey();
        int needed = limit.getValue().getNumericalAmount().intValue();
        if (!registered.contains(resource) || needed == 0) {
          continue;
        }
        Set<String> reuse = reusable.computeIfAbsent(resource, r -> new LinkedHashSet<>());
        Allocated allocated = allocate(running, container, resource, needed, reuse);
        if (init) {
          reuse.addAll(allocated.ids());
        } else {
          allocated.ids().forEach(reuse::remove);
        }
        if (resource.equals(ResourceNames.VNPU_NUMBER)) {
          handout = allocated.answer();
        }
      }
      handouts.put(container, handout);
    }
    return handouts;
  }

  /**
   * One Allocate call: {@code needed} devices of {@code resource} for {@code container}, first of
   * {@code reuse}, then healthy free ones; recorded once the plugin answered.
   */
  private Allocated allocate(
      RunningPod running, Container container, String resource, int needed, Set<String> reuse)
      throws NotAdmitted {
    try {
      List<String> ids = new ArrayList<>(reuse.stream().limit(needed).toList());
      Set<String> taken = new HashSet<>(devicesInUse(resource));
      taken.addAll(ids);
      ids.addAll(kubelet.pickHealthy(resource, needed - ids.size(), taken));
      long started = System.nanoTime();
      ContainerAllocateResponse answer = kubelet.allocate(resource, ids);
      allocateNanos.add(System.nanoTime() - started);
      synchronized (this) {
        running.devices.computeIfAbsent(resource, r -> new ArrayList<>()).addAll(ids);
        running
            .containerDevices
            .computeIfAbsent(container.getName(), c -> new HashMap<>())
            .put(resource, List.copyOf(ids));
      }
      return new Allocated(ids, answer);
    } catch (StatusRuntimeException | IllegalStateException e) {
      String why =
          e instanceof StatusRuntimeException refused
              ? goError(refused.getStatus())
              : e.getMessage();
      throw new NotAdmitted(
          "UnexpectedAdmissionError", "Allocate failed due to " + why + ", which is unexpected");
    }
  }

  /**
   * A plugin's refusal as the kubelet's message quotes it: grpc-go's error text ({@code
   * status.Error}, "rpc error: code = FailedPrecondition desc = ..."), as seen on the real node.
   */
  static String goError(Status status) {
    String code =
        switch (status.getCode()) {
          case OK -> "OK";
          case CANCELLED -> "Canceled";
          default ->
              Arrays.stream(status.getCode().name().split("_"))
                  .map(word -> word.charAt(0) + word.substring(1).toLowerCase(Locale.ROOT))
                  .collect(Collectors.joining());
        };
    return "rpc error: code = " + code + " desc = " + status.getDescription();
  }

  /** The devices one Allocate call handed out, and the plugin's answer. */
  private record Allocated(List<String> ids, ContainerAllocateResponse answer) {}

  /** Forgets a pod that finished: its devices are free again. */
  synchronized void remove(RunningPod running) {
    pods.remove(running.pod.getMetadata().getUid());
  }
}
