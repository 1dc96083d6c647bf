package org.vnpu.cluster;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.ResourceNames;
import org.vnpu.api.codec.PayloadCodec;

/**
 * The pods the real-cluster checks make and read, through the administrator's client: vNPU pods of
 * one soft share placed by the scenario's scheduler, plain pods, and what became of them.
 */
final class ClusterPods {

  /** Where the checks' pods go, unless a check names its own namespace. */
  static final String NAMESPACE = "default";

  private final KubernetesClient admin;
  private final String schedulerName;

  ClusterPods(KubernetesClient admin, String schedulerName) {
    this.admin = admin;
    this.schedulerName = schedulerName;
  }

  void create(Pod pod) {
    admin.pods().inNamespace(NAMESPACE).resource(pod).create();
  }

  void delete(String name) {
    admin.pods().inNamespace(NAMESPACE).withName(name).delete();
  }

  Pod get(String name) {
    return admin.pods().inNamespace(NAMESPACE).withName(name).get();
  }

  boolean bound(String name) {
    Pod pod = get(name);
    return pod != null && pod.getSpec().getNodeName() != null;
  }

  boolean running(String name) {
    Pod pod = get(name);
    return pod != null && pod.getStatus() != null && "Running".equals(pod.getStatus().getPhase());
  }

  /** The die ID of the pod's first vNPU, from its signed allocation; "-" when it has none. */
  String chipOf(String name) {
    Pod pod = get(name);
    String value =
        pod == null || pod.getMetadata().getAnnotations() == null
            ? null
            : pod.getMetadata().getAnnotations().get(AnnotationKeys.ALLOCATION);
    return value == null
        ? "-"
        : new PayloadCodec()
            .decodeAllocation(value)
            .allocation()
            .containers()
            .get(0)
            .vnpus()
            .get(0)
            .dieId();
  }

  void namespace(String name) {
    admin
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build())
        .serverSideApply();
  }

  /** A pod of one container and no vNPU. */
  Pod plainPod(String name) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .addNewContainer()
        .withName("main")
        .withImage("vnpu.local/workload")
        .endContainer()
        .endSpec()
        .build();
  }

  /** A pod of one soft vNPU of {@code cores} percent and 4 GiB. */
  Pod shared(String name, String namespace, int cores) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(namespace)
        .endMetadata()
        .withNewSpec()
        .withSchedulerName(schedulerName)
        .addNewContainer()
        .withName("main")
        .withImage("vnpu.local/workload")
        .withNewResources()
        .withLimits(
            Map.of(
                ResourceNames.VNPU_NUMBER, new Quantity("1"),
                ResourceNames.VNPU_CORES, new Quantity(Integer.toString(cores)),
                ResourceNames.VNPU_MEMORY_GIB, new Quantity("4")))
        .endResources()
        .endContainer()
        .endSpec()
        .build();
  }

  /** The API server's message refusing {@code request}, or "admitted" when it was not refused. */
  static String refusal(Runnable request) {
    try {
      request.run();
      return "admitted";
    } catch (KubernetesClientException e) {
      return e.getCode() + " " + e.getMessage();
    }
  }

  /** Whether {@code condition} holds within {@code timeout}, asked every half second. */
  static boolean await(BooleanSupplier condition, Duration timeout) throws InterruptedException {
    Instant deadline = Instant.now().plus(timeout);
    while (Instant.now().isBefore(deadline)) {
      if (condition.getAsBoolean()) {
        return true;
      }
      Thread.sleep(500);
    }
    return condition.getAsBoolean();
  }
}
