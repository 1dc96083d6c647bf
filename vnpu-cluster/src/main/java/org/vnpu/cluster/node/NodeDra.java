package org.vnpu.cluster.node;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodResourceClaimStatus;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplate;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.vnpu.cluster.SourceTree;
import org.vnpu.cluster.VnpuRelease;

/**
 * DRA on the real node: the chart switched to its DRA mode (the driver's DaemonSet instead of the
 * device plugin's), the driver registered with the real kubelet's plugin manager and publishing the
 * node's ResourceSlices, the claim of the chart's example allocated by the control plane's
 * kube-scheduler, prepared by the real kubelet through the driver's {@code NodePrepareResources},
 * and the container started by containerd with the claim's CDI edits: its device nodes, its
 * environment and the shim. A deleted pod's claim is unprepared and its CDI spec removed.
 */
final class NodeDra {

  private static final Duration READY = Duration.ofMinutes(3);
  private static final String EXAMPLE = "deploy/examples/dra/soft-share.yaml";
  private static final String POD = "dra";

  private final KubernetesClient admin;
  private final RealNode node;
  private final NodePods pods;
  private final ChartPods chart;
  private final Checks checks;

  NodeDra(KubernetesClient admin, RealNode node, NodePods pods, ChartPods chart, Checks checks) {
    this.admin = admin;
    this.node = node;
    this.pods = pods;
    this.chart = chart;
    this.checks = checks;
  }

  /**
   * @param values the chart's values on the real node, to which the DRA ones are added
   */
  void run(SourceTree tree, Path kubeconfig, Map<String, Object> values)
      throws IOException, InterruptedException {
    switchTheChart(tree, kubeconfig, values);
    slicesPublished();
    String claim = claimPodRuns(tree);
    // Found while the claim exists: its spec is named by its UID.
    Path spec = cdiSpec(claim);
    containerHasTheClaimsEdits(spec);
    pods.delete(POD);
    checks.await(
        "the deleted pod's claim is unprepared", Duration.ofMinutes(2), () -> !Files.exists(spec));
    checks.check(
        true, "the pod deleted, the real kubelet unprepared its claim: the CDI spec is removed");
  }

  private void switchTheChart(SourceTree tree, Path kubeconfig, Map<String, Object> values)
      throws InterruptedException {
    Map<String, Object> dra = new LinkedHashMap<>(values);
    dra.put("dra.enabled", true);
    // The control plane's kube-scheduler allocates the claim (its DynamicResources plugin) without
    // the vNPU scheduler's placement.
    dra.put("dra.placement", false);
    // The kubelet's plugin registry and sockets keep the chart's defaults (its root is
    // /var/lib/kubelet); containerd reads its own CDI directory.
    dra.put("dra.cdiDir", node.containerd().cdiSpecs().toString());
    VnpuRelease.installRunning(tree.chart(), kubeconfig, dra);
    chart.awaitDaemonSet(VnpuRelease.NAME + "-dra-driver");
    checks.await(
        "the device plugin's DaemonSet is gone",
        READY,
        () -> chart.daemonSet(VnpuRelease.NAME + "-device-plugin-default").isEmpty());
    checks.check(
        true,
        "the chart upgraded to DRA: the driver's DaemonSet runs on the real node instead of the"
            + " device plugin's");
  }

  private void slicesPublished() throws InterruptedException {
    checks.await(
        "the driver publishes the node's ResourceSlices", READY, () -> !slices().isEmpty());
    List<ResourceSlice> slices = slices();
    checks.check(
        true,
        "the driver, registered with the real kubelet, published "
            + slices.size()
            + " ResourceSlice(s) of "
            + slices.stream().mapToInt(slice -> slice.getSpec().getDevices().size()).sum()
            + " devices for "
            + node.name());
  }

  private List<ResourceSlice> slices() {
    return admin.resources(ResourceSlice.class).list().getItems().stream()
        .filter(slice -> node.name().equals(slice.getSpec().getNodeName()))
        .toList();
  }

  /** The example's template and a workload pod of its claim; returns the claim's name. */
  private String claimPodRuns(SourceTree tree) throws IOException, InterruptedException {
    ResourceClaimTemplate template = example(tree, ResourceClaimTemplate.class);
    template.getMetadata().setNamespace(NodePods.NAMESPACE);
    admin.resource(template).create();
    pods.create(
        pods.pod(POD, Map.of(), 1024)
            .editSpec()
            .withSchedulerName("default-scheduler")
            .addNewResourceClaim()
            .withName("npu")
            .withResourceClaimTemplateName(template.getMetadata().getName())
            .endResourceClaim()
            .editFirstContainer()
            .editResources()
            .addNewClaim()
            .withName("npu")
            .endClaim()
            .endResources()
            .endContainer()
            .endSpec());
    Pod pod = pods.await(POD, "running", NodePods::running, READY);
    PodResourceClaimStatus made = pod.getStatus().getResourceClaimStatuses().get(0);
    ResourceClaim claim =
        admin
            .resources(ResourceClaim.class)
            .inNamespace(NodePods.NAMESPACE)
            .withName(made.getResourceClaimName())
            .get();
    DeviceRequestAllocationResult result =
        claim.getStatus().getAllocation().getDevices().getResults().get(0);
    checks.check(
        node.name().equals(pod.getSpec().getNodeName()),
        "kube-scheduler allocated claim "
            + claim.getMetadata().getName()
            + " of the chart's example ("
            + result.getDevice()
            + " of pool "
            + result.getPool()
            + ") and the real kubelet started the pod on "
            + pod.getSpec().getNodeName());
    return claim.getMetadata().getName();
  }

  /** The container's device nodes and environment are those of the claim's CDI spec. */
  private void containerHasTheClaimsEdits(Path spec) throws IOException, InterruptedException {
    checks.check(
        true,
        "the real kubelet prepared the claim through the driver: CDI spec " + spec.getFileName());
    CdiEdits edits = CdiEdits.of(spec);
    PodExec.Result seen =
        PodExec.run(
            admin,
            NodePods.NAMESPACE,
            POD,
            "main",
            List.of("sh", "-c", "ls -1 /dev; echo ---; env; echo ---; cat /proc/mounts"));
    String[] parts = seen.output().split("---\n");
    List<String> devices = parts[0].lines().map(device -> "/dev/" + device).toList();
    List<String> environment = parts[1].lines().toList();
    List<String> mounts = parts[2].lines().map(line -> line.split(" ")[1]).toList();
    List<String> missing = new ArrayList<>();
    edits.deviceNodes().stream().filter(d -> !devices.contains(d)).forEach(missing::add);
    edits.mounts().stream().filter(m -> !mounts.contains(m)).forEach(missing::add);
    edits.environment().stream().filter(e -> !environment.contains(e)).forEach(missing::add);
    checks.check(
        missing.isEmpty() && !edits.deviceNodes().isEmpty() && !edits.mounts().isEmpty(),
        "containerd applied the claim's CDI edits to the container: device nodes "
            + edits.deviceNodes()
            + ", mounts "
            + edits.mounts()
            + ", "
            + edits.environment().size()
            + " variables"
            + (missing.isEmpty() ? "" : "; missing " + missing));
    checks.await(
        "the pod's workload took its memory", READY, () -> pods.log(POD).contains("taken"));
    checks.check(
        true,
        "its workload runs under the shim the CDI spec preloads: "
            + pods.log(POD).lines().filter(line -> line.contains("quota")).findFirst().orElse(""));
  }

  /**
   * The CDI spec the driver wrote for claim {@code claimName} in containerd's CDI directory, which
   * names the claim's UID; IllegalStateException when there is none.
   */
  private Path cdiSpec(String claimName) throws IOException {
    ResourceClaim claim =
        admin
            .resources(ResourceClaim.class)
            .inNamespace(NodePods.NAMESPACE)
            .withName(claimName)
            .get();
    if (claim == null) {
      throw new IllegalStateException("claim " + claimName + " is gone while its pod runs");
    }
    String uid = claim.getMetadata().getUid();
    try (Stream<Path> files = Files.list(node.containerd().cdiSpecs())) {
      return files
          .filter(file -> file.getFileName().toString().contains(uid))
          .findFirst()
          .orElseThrow(
              () ->
                  new IllegalStateException(
                      "no CDI spec for claim "
                          + claimName
                          + " ("
                          + uid
                          + ") in "
                          + node.containerd().cdiSpecs()
                          + ": the kubelet did not prepare it"));
    }
  }

  /** The document of {@code kind} in the chart's example. */
  private <T extends HasMetadata> T example(SourceTree tree, Class<T> kind) throws IOException {
    try (InputStream in = Files.newInputStream(tree.root().resolve(EXAMPLE))) {
      return admin.load(in).items().stream()
          .filter(kind::isInstance)
          .map(kind::cast)
          .findFirst()
          .orElseThrow(
              () -> new IllegalStateException(EXAMPLE + " has no " + kind.getSimpleName()));
    }
  }
}
