package org.vnpu.scheduler;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.vnpu.api.AiCorePolicy;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.HandshakeState;
import org.vnpu.api.SplitMode;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.payload.ContainerAllocation;
import org.vnpu.api.payload.NodeHandshake;
import org.vnpu.api.payload.NodeRegistration;
import org.vnpu.api.payload.OfflineWork;
import org.vnpu.api.payload.PodAllocation;
import org.vnpu.api.payload.RegisteredChip;
import org.vnpu.api.payload.VnpuAssignment;
import org.vnpu.api.signing.AllocationSigner;
import org.vnpu.api.signing.AllocationVerifier;
import org.vnpu.api.signing.SigningKey;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.core.chip.ChipModel;
import org.vnpu.kube.NodeLocks;

/** Nodes and pods for scheduler tests, written to an API server (fabric8's CRUD mock). */
final class ClusterFixture {

  static final PayloadCodec CODEC = new PayloadCodec();
  static final SigningKey KEY = SigningKey.generate();
  static final AllocationSigner SIGNER = new AllocationSigner(KEY, CODEC);
  static final AllocationVerifier VERIFIER = AllocationVerifier.of(KEY, CODEC);

  private ClusterFixture() {}

  /** A scheduler with the default settings and this fixture's key, over {@code client}. */
  static Scheduler scheduler(KubernetesClient client, Clock clock) {
    return new Scheduler(
        client, ChipCatalog.builtIn(), SIGNER, VERIFIER, SchedulerSettings.defaults(), clock);
  }

  /**
   * A soft-mode node with {@code chips} 910B3 chips and a fresh heartbeat; {@code cpu} its
   * allocatable CPU, or null when it does not say.
   */
  static Node node(String name, int chips, String cpu) {
    return node(name, chips, cpu, "910B3");
  }

  /** As {@link #node(String, int, String)}, with chips of {@code type} as the catalog has it. */
  static Node node(String name, int chips, String cpu, String type) {
    ChipModel model = ChipCatalog.builtIn().find(type).orElseThrow();
    List<RegisteredChip> registered = new ArrayList<>();
    for (int i = 0; i < chips; i++) {
      registered.add(
          new RegisteredChip(
              i,
              name + "-die-" + i,
              type,
              model.memoryMiB(),
              model.aiCores(),
              model.aiCpus(),
              true,
              -1,
              ""));
    }
    NodeBuilder node =
        new NodeBuilder()
            .withNewMetadata()
            .withName(name)
            .addToAnnotations(
                AnnotationKeys.NODE_REGISTER,
                CODEC.encodeRegistration(new NodeRegistration(SplitMode.SOFT, 20, registered)))
            .addToAnnotations(
                AnnotationKeys.NODE_HANDSHAKE,
                CODEC.encodeHandshake(new NodeHandshake(HandshakeState.REPORTED, Instant.now())))
            .endMetadata();
    if (cpu != null) {
      node.withNewStatus()
          .addToAllocatable("cpu", new Quantity(cpu))
          .addToAllocatable("memory", new Quantity("512Gi"))
          .endStatus();
    }
    return node.build();
  }

  /** The lock Lease of {@code node} as the API server has it (ADR 0032). */
  static Lease locks(KubernetesClient client, String node) {
    return client.resources(Lease.class).inNamespace(NodeLocks.NAMESPACE).withName(node).get();
  }

  /**
   * The allocation of a pod with one container {@code main} holding an elastic soft share of chip
   * {@code chip} (die {@code dieId}, a 910B3); online when {@code offline} is null.
   */
  static PodAllocation share(
      String uid,
      String node,
      int chip,
      String dieId,
      long memoryMiB,
      int cores,
      OfflineWork offline) {
    return new PodAllocation(
        uid,
        node,
        List.of(
            new ContainerAllocation(
                "main",
                false,
                List.of(
                    new VnpuAssignment(
                        chip,
                        dieId,
                        "910B3",
                        memoryMiB,
                        cores,
                        SplitMode.SOFT,
                        false,
                        AiCorePolicy.ELASTIC,
                        null)))),
        offline);
  }

  /** The annotation value of {@code allocation}, signed with this fixture's key. */
  static String signed(PodAllocation allocation) {
    return CODEC.encodeAllocation(SIGNER.sign(allocation, AllocationSigner.nonce()));
  }

  static Node create(KubernetesClient client, Node node) {
    return client.nodes().resource(node).create();
  }

  /** Creates the pod in namespace {@code default}, bound to {@code node} unless it is null. */
  static Pod create(KubernetesClient client, PodBuilder pod, String node) {
    if (node != null) {
      pod.editSpec().withNodeName(node).endSpec();
    }
    return client.pods().inNamespace("default").resource(pod.build()).create();
  }

  static PodBuilder plainPod(String name, String cpu) {
    return pod(name, cpu, Map.of());
  }

  static PodBuilder sharePod(String name, String cpu) {
    return pod(
        name,
        cpu,
        Map.of(
            "huawei.com/vnpu-number", "1",
            "huawei.com/vnpu-cores", "10",
            "huawei.com/vnpu-memory.1Gi", "4"));
  }

  /**
   * A pod of one container with a share of {@code cores} % and 4 GiB, its annotations a map the
   * test may add to.
   */
  static PodBuilder sharePod(String name, String cpu, int cores) {
    PodBuilder pod = sharePod(name, cpu);
    pod.editSpec()
        .editFirstContainer()
        .editResources()
        .addToLimits("huawei.com/vnpu-cores", new Quantity(Integer.toString(cores)))
        .endResources()
        .endContainer()
        .endSpec();
    return pod.editMetadata().withAnnotations(new HashMap<>()).endMetadata();
  }

  static PodBuilder wholeCardPod(String name, String cpu) {
    return wholeCardsPod(name, cpu, 1);
  }

  static PodBuilder wholeCardsPod(String name, String cpu, int cards) {
    return pod(name, cpu, Map.of("huawei.com/vnpu-number", Integer.toString(cards)));
  }

  private static PodBuilder pod(String name, String cpu, Map<String, String> vnpus) {
    Map<String, Quantity> limits = new LinkedHashMap<>();
    vnpus.forEach((key, value) -> limits.put(key, new Quantity(value)));
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace("default")
        .withUid(UUID.randomUUID().toString())
        .endMetadata()
        .withNewSpec()
        .addNewContainer()
        .withName("main")
        .withNewResources()
        .withLimits(limits)
        .addToRequests("cpu", new Quantity(cpu))
        .addToRequests("memory", new Quantity("1Gi"))
        .endResources()
        .endContainer()
        .endSpec();
  }
}
