package org.vnpu.sandbox;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.api.payload.RegisteredChip;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.kube.DaemonThreads;
import org.vnpu.kube.Informers;
import org.vnpu.kube.PodPhases;
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
  private final DeviceAdmission devices;

  /** Held through one pod's admission: the kubelet admits one pod at a time. */
  private final Object admissions = new Object();

  private SharedIndexInformer<Pod> informer;

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
    this.devices = new DeviceAdmission(kubelet, pods);
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
    return devices.allocateSeconds();
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

  /** What the kubelet's pod-resources API reports ({@link DeviceAdmission#activePods}). */
  List<PodResourcesEmulator.ActivePod> activePods() {
    return devices.activePods();
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
      // pkg/kubelet/kubelet.go rejectPod: "Pod was rejected: " + the admit handler's message.
      finish(running, "Failed", e.reason, "Pod was rejected: " + e.getMessage());
      return;
    }
    try {
      handouts = withClaims(running, handouts);
    } catch (IOException | RuntimeException e) {
      LOG.warn("pod {} claims not prepared on {}: {}", running.key(), node, e.getMessage());
      finish(running, "Failed", "FailedPrepareDynamicResources", e.getMessage());
      return;
    }
    if (!workloads) {
      // Admitted and handed out, as far as the node's vNPU part goes; no process runs.
      report(running, KubeletPodStatus.of("Running", null, null));
      return;
    }
    try {
      runContainers(running, handouts);
    } catch (IOException e) {
      finish(running, "Failed", "ContainerCannotRun", e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * The hand-outs with each container's prepared claims in place of its device plugin's, on a DRA
   * node; as they are on another node or for a pod without claims.
   */
  private Map<Container, ContainerAllocateResponse> withClaims(
      RunningPod running, Map<Container, ContainerAllocateResponse> handouts) throws IOException {
    if (claims == null || running.pod.getSpec().getResourceClaims().isEmpty()) {
      return handouts;
    }
    Map<String, ContainerAllocateResponse> prepared = claims.prepare(running.pod);
    Map<Container, ContainerAllocateResponse> merged = new LinkedHashMap<>(handouts);
    for (Container container : running.pod.getSpec().getContainers()) {
      if (prepared.containsKey(container.getName())) {
        merged.put(container, prepared.get(container.getName()));
      }
    }
    return merged;
  }

  /** Runs the init containers to completion one by one, then the main ones, and reports. */
  private void runContainers(RunningPod running, Map<Container, ContainerAllocateResponse> handouts)
      throws IOException, InterruptedException {
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
    report(running, KubeletPodStatus.of("Running", null, null));
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
  }

  /**
   * The kubelet's admission, one pod at a time on the node, in the order of its admit handlers
   * ({@code pkg/kubelet/kubelet.go NewMainKubelet}): the device manager first, then the resource
   * fit.
   */
  private Map<Container, ContainerAllocateResponse> admit(RunningPod running) throws NotAdmitted {
    synchronized (admissions) {
      running.inPodManager = true;
      Map<Container, ContainerAllocateResponse> handouts = devices.allocate(running);
      List<Pod> admitted =
          pods.values().stream().filter(other -> other.admitted).map(other -> other.pod).toList();
      NodeResourceFit.admit(running.pod, client.nodes().withName(node).get(), admitted);
      Map<String, ContainerAllocateResponse> byName = new HashMap<>();
      handouts.forEach((container, handout) -> byName.put(container.getName(), handout));
      running.handouts = Map.copyOf(byName);
      running.admitted = true;
      return handouts;
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
      report(running, KubeletPodStatus.of(phase, reason, message));
      LOG.info(
          "pod {} on {}: {}{}", running.key(), node, phase, message == null ? "" : " — " + message);
    }
    devices.remove(running);
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
