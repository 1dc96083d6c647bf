package org.vnpu.sandbox;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.api.ResourceNames;
import org.vnpu.api.payload.RegisteredChip;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.kube.DaemonThreads;
import org.vnpu.kube.Informers;
import org.vnpu.kube.NodeBook;
import org.vnpu.kube.PodPhases;
import org.vnpu.kube.PodRequests;
import org.vnpu.kubelet.KubeletEmulator;
import org.vnpu.kubelet.PodResourcesEmulator;
import org.vnpu.kubelet.deviceplugin.v1beta1.ContainerAllocateResponse;

/**
 * The pod half of a kubelet: follows the pods bound to its node and admits each as the kubelet does
 * (the device manager's Allocate for every device-plugin resource of every container, then the
 * resource fit against the node's allocatable); runs the init containers to completion, then the
 * main ones; and reports the pod's phase. A pod that is not admitted fails with the kubelet's
 * reason: {@code UnexpectedAdmissionError} when devices are short or Allocate is refused, {@code
 * OutOf<resource>} when the node lacks room. A deleted pod's containers get SIGTERM; its device IDs
 * are free again once they stopped. On a DRA node, a pod's ResourceClaims are prepared before its
 * containers start and unprepared when it is gone, as the kubelet's DRA manager does in {@code
 * SyncPod} ({@code pkg/kubelet/cm/dra/manager.go}); a container's claims come as CDI devices.
 */
final class PodRunner implements AutoCloseable {

  /** The kubelet's DRA manager and the container runtime's CDI support, on a DRA node. */
  interface ClaimPreparation {

    /** Prepares the pod's claims; per container name, the CDI edits of the claims it names. */
    Map<String, ContainerAllocateResponse> prepare(Pod pod) throws IOException;

    /** Unprepares the claims of a pod that is gone. */
    void unprepare(Pod pod);
  }

  private static final Logger LOG = LoggerFactory.getLogger(PodRunner.class);

  private final KubernetesClient client;
  private final String node;
  private final KubeletEmulator kubelet;
  private final ContainerRuntime runtime;
  private final Path podsDirectory;
  private final boolean workloads;
  private final ClaimPreparation claims;
  private final Map<String, RunningPod> pods = new ConcurrentHashMap<>();
  private final ExecutorService workers;
  private final LongAdder allocateNanos = new LongAdder();

  /**
   * Held through one pod's admission. The pods' recorded devices are guarded by this runner's own
   * monitor, taken only to read or record them, so that the pod-resources API answers while a pod
   * is admitted, as the kubelet's does: the device manager calls a plugin's Allocate outside its
   * mutex ({@code pkg/kubelet/cm/devicemanager/manager.go allocateContainerResources}) and {@code
   * GetDevices} reads what it recorded.
   */
  private final Object admissions = new Object();

  private SharedIndexInformer<Pod> informer;

  /** Why the kubelet did not admit a pod: its status reason and message. */
  private static final class NotAdmitted extends Exception {
    private static final long serialVersionUID = 1L;
    final String reason;

    NotAdmitted(String reason, String message) {
      super(message);
      this.reason = reason;
    }
  }

  private static final class RunningPod {
    final Pod pod;
    final Map<String, List<String>> devices = new HashMap<>();
    final Map<String, Map<String, List<String>>> containerDevices = new HashMap<>();
    volatile Map<String, ContainerAllocateResponse> handouts = Map.of();

    /** In the kubelet's pod manager: from the start of its admission until it ends. */
    volatile boolean inPodManager;

    volatile boolean admitted;
    final List<Process> processes = new ArrayList<>();
    volatile boolean deleted;

    RunningPod(Pod pod) {
      this.pod = pod;
    }

    String key() {
      return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
    }
  }

  PodRunner(
      KubernetesClient client,
      String node,
      KubeletEmulator kubelet,
      ContainerRuntime runtime,
      Path podsDirectory,
      boolean workloads,
      ClaimPreparation claims) {
    this.client = client;
    this.node = node;
    this.kubelet = kubelet;
    this.runtime = runtime;
    this.podsDirectory = podsDirectory;
    this.workloads = workloads;
    this.claims = claims;
    this.workers = Executors.newCachedThreadPool(DaemonThreads.named("vnpu-sandbox-pods-" + node));
  }

  /**
   * Starts the pods of node {@code node} whose state lives under {@code directory}: containers run
   * the workload under the shim on the node's fake chips, {@code chips} by index; {@code claims}
   * prepares their ResourceClaims (null on a node without the DRA driver).
   */
  static PodRunner startOn(
      KubernetesClient client,
      String node,
      Path directory,
      KubeletEmulator kubelet,
      IntFunction<RegisteredChip> chips,
      NativeFiles natives,
      ChipCatalog catalog,
      SandboxOptions options,
      ClaimPreparation claims) {
    ContainerRuntime runtime =
        new ContainerRuntime(
            natives.workload(),
            directory.resolve("fake-chips"),
            chips,
            catalog,
            options.workloadNiceness());
    return new PodRunner(
            client, node, kubelet, runtime, directory.resolve("pods"), options.workloads(), claims)
        .start();
  }

  /**
   * Watches the pods bound to this node, as the kubelet does ({@code
   * pkg/kubelet/config/apiserver.go NewSourceApiserver}: every namespace, {@code spec.nodeName} =
   * the node).
   */
  PodRunner start() {
    informer =
        client
            .pods()
            .inAnyNamespace()
            .withField("spec.nodeName", node)
            .inform(Informers.handler(this::changed, this::removed));
    return this;
  }

  /** Seconds the device plugins took to answer this node's Allocate calls so far. */
  double allocateSeconds() {
    return allocateNanos.sum() / 1e9;
  }

  /** What each admitted pod's containers were handed out, by pod UID and container name. */
  Map<String, Map<String, ContainerAllocateResponse>> handouts() {
    Map<String, Map<String, ContainerAllocateResponse>> byPod = new HashMap<>();
    pods.forEach(
        (uid, running) -> {
          if (running.admitted) {
            byPod.put(uid, running.handouts);
          }
        });
    return byPod;
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

  private void changed(Pod pod) {
    if (!node.equals(pod.getSpec().getNodeName())) {
      return;
    }
    if (pod.getMetadata().getDeletionTimestamp() != null) {
      terminate(pod);
      return;
    }
    if (PodPhases.finished(pod)) {
      return;
    }
    pods.computeIfAbsent(
        pod.getMetadata().getUid(),
        uid -> {
          RunningPod running = new RunningPod(pod);
          workers.execute(() -> run(running));
          return running;
        });
  }

  /**
   * A pod being deleted gracefully (an API server sets its {@code deletionTimestamp} and keeps it
   * until the kubelet says its containers stopped): its containers are stopped, then it is deleted
   * for good, as the kubelet's status manager does once the pod can be deleted ({@code
   * pkg/kubelet/status/status_manager.go syncPod}: a delete with grace period 0 and the pod's UID
   * as precondition). The sandbox's mock API server deletes at once; this is for a real one.
   */
  private void terminate(Pod pod) {
    String uid = pod.getMetadata().getUid();
    RunningPod running = pods.get(uid);
    workers.execute(
        () -> {
          if (running != null) {
            running.deleted = true;
            stop(running);
          }
          PodWrites.deleteNow(client, pod);
        });
  }

  private void removed(Pod pod) {
    RunningPod running = pods.get(pod.getMetadata().getUid());
    if (running != null) {
      running.deleted = true;
      stop(running);
      if (claims != null && !pod.getSpec().getResourceClaims().isEmpty()) {
        claims.unprepare(pod);
      }
    }
  }

  private void run(RunningPod running) {
    Map<Container, ContainerAllocateResponse> handouts;
    try {
      handouts = admit(running);
    } catch (NotAdmitted e) {
      LOG.warn("pod {} not admitted on {}: {}: {}", running.key(), node, e.reason, e.getMessage());
      finish(running, "Failed", e.reason, e.getMessage());
      return;
    }
    if (claims != null && !running.pod.getSpec().getResourceClaims().isEmpty()) {
      try {
        Map<String, ContainerAllocateResponse> prepared = claims.prepare(running.pod);
        handouts = new LinkedHashMap<>(handouts);
        for (Container container : running.pod.getSpec().getContainers()) {
          if (prepared.containsKey(container.getName())) {
            handouts.put(container, prepared.get(container.getName()));
          }
        }
      } catch (IOException | RuntimeException e) {
        LOG.warn("pod {} claims not prepared on {}: {}", running.key(), node, e.getMessage());
        finish(running, "Failed", "FailedPrepareDynamicResources", e.getMessage());
        return;
      }
    }
    if (!workloads) {
      // Admitted and handed out, as far as the node's vNPU part goes; no process runs.
      report(running, status("Running", null, null));
      return;
    }
    try {
      for (Container init : running.pod.getSpec().getInitContainers()) {
        int code = launch(running, init, handouts.get(init)).waitFor();
        if (code != 0) {
          finish(running, "Failed", "InitContainerFailed", init.getName() + " exited " + code);
          return;
        }
      }
      List<Process> main = new ArrayList<>();
      for (Container container : running.pod.getSpec().getContainers()) {
        main.add(launch(running, container, handouts.get(container)));
      }
      report(running, status("Running", null, null));
      List<String> failures = new ArrayList<>();
      for (int i = 0; i < main.size(); i++) {
        int code = main.get(i).waitFor();
        if (code != 0 && !running.deleted) {
          failures.add(running.pod.getSpec().getContainers().get(i).getName() + " exited " + code);
        }
      }
      finish(
          running,
          failures.isEmpty() ? "Succeeded" : "Failed",
          failures.isEmpty() ? null : "Error",
          failures.isEmpty() ? null : String.join("; ", failures));
    } catch (IOException e) {
      finish(running, "Failed", "ContainerCannotRun", e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * The kubelet's admission, one pod at a time on the node, in the order of its admit handlers
   * ({@code pkg/kubelet/kubelet.go NewMainKubelet}): the device manager first, then the resource
   * fit.
   */
  private Map<Container, ContainerAllocateResponse> admit(RunningPod running) throws NotAdmitted {
    synchronized (admissions) {
      running.inPodManager = true;
      Map<Container, ContainerAllocateResponse> handouts = allocateDevices(running);
      fit(running.pod);
      Map<String, ContainerAllocateResponse> byName = new HashMap<>();
      handouts.forEach((container, handout) -> byName.put(container.getName(), handout));
      running.handouts = Map.copyOf(byName);
      running.admitted = true;
      return handouts;
    }
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
  private Map<Container, ContainerAllocateResponse> allocateDevices(RunningPod running)
      throws NotAdmitted {
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
          if (init) {
            reuse.addAll(ids);
          } else {
            ids.forEach(reuse::remove);
          }
          if (resource.equals(ResourceNames.VNPU_NUMBER)) {
            handout = answer;
          }
        } catch (StatusRuntimeException | IllegalStateException e) {
          String why =
              e instanceof StatusRuntimeException refused
                  ? refused.getStatus().getDescription()
                  : e.getMessage();
          throw new NotAdmitted(
              "UnexpectedAdmissionError",
              "Allocate failed due to " + why + ", which is unexpected");
        }
      }
      handouts.put(container, handout);
    }
    return handouts;
  }

  /**
   * {@code pkg/kubelet/lifecycle/predicate.go Admit()}: extended resources the node does not
   * advertise are dropped from the pod's requests ({@code removeMissingExtendedResources}), the
   * rest must fit beside the pods already admitted, or the pod fails {@code OutOf<resource>}.
   */
  private void fit(Pod pod) throws NotAdmitted {
    Node current = client.nodes().withName(node).get();
    List<Pod> admitted =
        pods.values().stream()
            .filter(running -> running.admitted)
            .map(running -> running.pod)
            .toList();
    NodeBook book = NodeBook.of(List.of(current), admitted).get(node);
    Map<String, BigDecimal> request = new TreeMap<>(PodRequests.of(pod));
    request
        .keySet()
        .removeIf(name -> PodRequests.isExtended(name) && !book.allocatable().containsKey(name));
    Map<String, String> short_ = book.kubeShortfall(request, List.of());
    if (!short_.isEmpty()) {
      String resource = short_.keySet().iterator().next();
      throw new NotAdmitted(
          "OutOf" + resource,
          "Node didn't have enough resource: "
              + resource
              + ", requested: "
              + request.getOrDefault(resource, BigDecimal.ONE).toPlainString()
              + ", used: "
              + book.requested().getOrDefault(resource, BigDecimal.ZERO).toPlainString()
              + ", capacity: "
              + book.allocatable().getOrDefault(resource, BigDecimal.ZERO).toPlainString());
    }
  }

  private Process launch(RunningPod running, Container container, ContainerAllocateResponse handout)
      throws IOException {
    Map<String, String> environment = new LinkedHashMap<>();
    for (EnvVar variable : container.getEnv()) {
      if (variable.getValue() != null) {
        environment.put(variable.getName(), variable.getValue());
      }
    }
    Path directory =
        podsDirectory
            .resolve(running.pod.getMetadata().getNamespace())
            .resolve(running.pod.getMetadata().getName())
            .resolve(container.getName());
    Process process = runtime.start(handout, environment, directory);
    synchronized (running) {
      running.processes.add(process);
      if (running.deleted) {
        process.destroy();
      }
    }
    LOG.info("pod {} container {} started on {}", running.key(), container.getName(), node);
    return process;
  }

  private void finish(RunningPod running, String phase, String reason, String message) {
    running.inPodManager = false; // terminal: inactive (kubelet_pods.go filterOutInactivePods)
    if (!running.deleted) {
      report(running, status(phase, reason, message));
      LOG.info(
          "pod {} on {}: {}{}", running.key(), node, phase, message == null ? "" : " — " + message);
    }
    synchronized (this) {
      pods.remove(running.pod.getMetadata().getUid());
    }
  }

  /**
   * The status the kubelet reports, with the conditions it sets ({@code pkg/kubelet/kubelet_pods.go
   * generateAPIPodStatus}): a running pod is Ready, which the ReplicaSet controller's available
   * replicas and the disruption controller's healthy pods (what the Eviction API lets go under a
   * PodDisruptionBudget) count.
   */
  private static PodStatus status(String phase, String reason, String message) {
    String now = Instant.now().toString();
    String ready = "Running".equals(phase) ? "True" : "False";
    PodStatusBuilder status =
        new PodStatusBuilder()
            .withPhase(phase)
            .withReason(reason)
            .withMessage(message)
            .withStartTime(now);
    for (String type : List.of("PodScheduled", "Initialized", "ContainersReady", "Ready")) {
      boolean always = type.equals("PodScheduled") || type.equals("Initialized");
      status
          .addNewCondition()
          .withType(type)
          .withStatus(always ? "True" : ready)
          .withLastTransitionTime(now)
          .endCondition();
    }
    return status.build();
  }

  private void report(RunningPod running, PodStatus status) {
    try {
      PodWrites.editStatus(
          client,
          running.pod,
          pod -> {
            // The kubelet reports the phase and its conditions; what the resource claim
            // controller recorded stays.
            if (pod.getStatus() != null) {
              status.setResourceClaimStatuses(pod.getStatus().getResourceClaimStatuses());
            }
            pod.setStatus(status);
            return pod;
          });
    } catch (KubernetesClientException e) {
      LOG.warn(
          "pod {}: cannot report phase {}: {}", running.key(), status.getPhase(), e.getMessage());
    }
  }

  private static void stop(RunningPod running) {
    List<Process> processes;
    synchronized (running) {
      processes = List.copyOf(running.processes);
    }
    processes.forEach(Process::destroy);
    for (Process process : processes) {
      try {
        if (!process.waitFor(5, TimeUnit.SECONDS)) {
          process.destroyForcibly();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        process.destroyForcibly();
      }
    }
  }

  @Override
  public void close() {
    if (informer != null) {
      informer.close();
    }
    pods.values().forEach(running -> running.deleted = true);
    pods.values().forEach(PodRunner::stop);
    workers.shutdownNow();
  }
}
