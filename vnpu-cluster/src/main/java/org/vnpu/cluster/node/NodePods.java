package org.vnpu.cluster.node;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ContainerStateTerminated;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;
import org.vnpu.api.ResourceNames;

/**
 * The real node's test pods and waiting on them: vNPU pods running the workload image, scheduled by
 * Volcano, sharing the fake runtime's chip files through a hostPath (the hardware's stand-in).
 */
final class NodePods {

  static final String NAMESPACE = "default";
  private static final Duration POLL = Duration.ofMillis(500);

  private final KubernetesClient admin;
  private final NodeHardware hardware;

  NodePods(KubernetesClient admin, NodeHardware hardware) {
    this.admin = admin;
    this.hardware = hardware;
  }

  /**
   * A pod of one container running the workload program until stopped.
   *
   * @param resources vNPU resources by name
   * @param memoryMiB the device memory the workload takes at start
   */
  Pod create(String name, Map<String, String> resources, long memoryMiB) {
    return create(pod(name, resources, memoryMiB));
  }

  /**
   * {@link #create} with an init container of the same resources before it, whose workload takes
   * {@code memoryMiB} and stops after two seconds.
   */
  Pod createWithInit(String name, Map<String, String> resources, long memoryMiB) {
    return create(withInit(pod(name, resources, memoryMiB)));
  }

  Pod create(PodBuilder pod) {
    return admin.pods().inNamespace(NAMESPACE).resource(pod.build()).create();
  }

  /** {@code pod} with an init container like its first, which stops after two seconds. */
  static PodBuilder withInit(PodBuilder pod) {
    Container init =
        new ContainerBuilder(pod.buildSpec().getContainers().get(0))
            .withName("init")
            .addNewEnv()
            .withName("WORKLOAD_SECONDS")
            .withValue("2")
            .endEnv()
            .build();
    return pod.editSpec().addToInitContainers(init).endSpec();
  }

  /** A pod of one container running the workload program, scheduled by Volcano. */
  PodBuilder pod(String name, Map<String, String> resources, long memoryMiB) {
    Map<String, Quantity> limits = new LinkedHashMap<>();
    resources.forEach((resource, amount) -> limits.put(resource, new Quantity(amount)));
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(NAMESPACE)
        .endMetadata()
        .withNewSpec()
        .withSchedulerName("volcano")
        .withRestartPolicy("Never")
        .addNewContainer()
        .withName("main")
        .withImage(NodeImages.WORKLOAD)
        .withImagePullPolicy("Never")
        .addNewEnv()
        .withName("WORKLOAD_MEMORY_MIB")
        .withValue(Long.toString(memoryMiB))
        .endEnv()
        .addNewEnv()
        .withName("VNPU_FAKE_RT_DIR")
        .withValue("/var/run/fake-chips")
        .endEnv()
        .withNewResources()
        .withLimits(limits)
        .endResources()
        .addNewVolumeMount()
        .withName("fake-chips")
        .withMountPath("/var/run/fake-chips")
        .endVolumeMount()
        .endContainer()
        .addNewVolume()
        .withName("fake-chips")
        .withNewHostPath()
        .withPath(hardware.fakeChips().toString())
        .withType("Directory")
        .endHostPath()
        .endVolume()
        .endSpec();
  }

  /** A shared-chip pod's resources: one vNPU of {@code cores} % AI Core and {@code memoryGiB}. */
  static Map<String, String> shared(int cores, int memoryGiB) {
    return Map.of(
        ResourceNames.VNPU_NUMBER,
        "1",
        ResourceNames.VNPU_CORES,
        Integer.toString(cores),
        ResourceNames.VNPU_MEMORY_GIB,
        Integer.toString(memoryGiB));
  }

  static Map<String, String> wholeCard() {
    return Map.of(ResourceNames.VNPU_NUMBER, "1");
  }

  /** Waits until the pod matches {@code state}; fails with the pod's status otherwise. */
  Pod await(String name, String what, Predicate<Pod> state, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    Pod pod = null;
    while (System.nanoTime() < deadline) {
      pod = admin.pods().inNamespace(NAMESPACE).withName(name).get();
      if (pod != null && state.test(pod)) {
        return pod;
      }
      Thread.sleep(POLL.toMillis());
    }
    throw new IllegalStateException(
        "pod "
            + name
            + " is not "
            + what
            + " within "
            + timeout.toSeconds()
            + " s; its status: "
            + (pod == null ? "gone" : pod.getStatus()));
  }

  static boolean running(Pod pod) {
    return "Running".equals(pod.getStatus().getPhase())
        && pod.getStatus().getContainerStatuses().stream().allMatch(ContainerStatus::getReady);
  }

  /** The first container's termination, when it has ended. */
  static Optional<ContainerStateTerminated> terminated(Pod pod) {
    return pod.getStatus().getContainerStatuses().stream()
        .map(status -> status.getState().getTerminated())
        .filter(Objects::nonNull)
        .findFirst();
  }

  String log(String name) {
    return admin.pods().inNamespace(NAMESPACE).withName(name).getLog();
  }

  String log(String name, String container) {
    return admin.pods().inNamespace(NAMESPACE).withName(name).inContainer(container).getLog();
  }

  /** Deletes every pod of the namespace and waits until they are gone. */
  void deleteAll() throws InterruptedException {
    admin.pods().inNamespace(NAMESPACE).withGracePeriod(0).delete();
    long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
    while (!admin.pods().inNamespace(NAMESPACE).list().getItems().isEmpty()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "pods of " + NAMESPACE + " not gone within 2 minutes of their deletion");
      }
      Thread.sleep(POLL.toMillis());
    }
  }

  void delete(String name) {
    admin.pods().inNamespace(NAMESPACE).withName(name).withGracePeriod(0).delete();
  }
}
