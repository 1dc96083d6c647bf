package org.vnpu.deviceplugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;
import static org.vnpu.deviceplugin.ScheduledPods.hard;
import static org.vnpu.deviceplugin.ScheduledPods.soft;
import static org.vnpu.deviceplugin.ScheduledPods.whole;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vnpu.api.AiCorePolicy;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.LogLevel;
import org.vnpu.api.ResourceNames;
import org.vnpu.api.ShimContract;
import org.vnpu.api.SplitMode;
import org.vnpu.api.codec.ShimConfigFormat;
import org.vnpu.api.payload.ContainerAllocation;
import org.vnpu.api.payload.NodeRegistration;
import org.vnpu.api.payload.RegisteredChip;
import org.vnpu.api.payload.ShimConfig;
import org.vnpu.api.payload.ShimDevice;
import org.vnpu.api.payload.VnpuAssignment;
import org.vnpu.api.region.ChipRegion;
import org.vnpu.api.signing.AllocationSigner;
import org.vnpu.api.signing.SigningKey;
import org.vnpu.deviceplugin.kubelet.ChipOwnership;
import org.vnpu.handouts.Handouts;
import org.vnpu.kubelet.KubeletEmulator;
import org.vnpu.kubelet.PodResourcesEmulator;
import org.vnpu.kubelet.deviceplugin.v1beta1.ContainerAllocateResponse;
import org.vnpu.kubelet.deviceplugin.v1beta1.Device;
import org.vnpu.kubelet.deviceplugin.v1beta1.DevicePluginOptions;
import org.vnpu.kubelet.deviceplugin.v1beta1.DeviceSpec;
import org.vnpu.kubelet.deviceplugin.v1beta1.Mount;

/**
 * The whole device plugin against a kubelet emulator on real Unix sockets and fabric8's CRUD mock
 * API server: registration, ListAndWatch, Allocate for every kind of pod, and every refusal.
 */
@EnableKubernetesMockClient(crud = true)
class DevicePluginTest {

  private static final AtomicInteger NODES = new AtomicInteger();
  private static final String RESOURCE = PluginHarness.RESOURCE;
  private static final List<String> ACCOUNTED =
      List.of(
          RESOURCE,
          ResourceNames.VNPU_CORES,
          ResourceNames.VNPU_MEMORY_GIB,
          ResourceNames.typeResource("910B3"));

  KubernetesClient client;

  @TempDir Path directory;

  private PluginHarness harness;
  private String node;
  private String die0;
  private String die1;
  private KubeletEmulator kubelet;
  private ScheduledPods pods;

  /** The pods the kubelet's PodResources API lists, once a test serves it. */
  private final List<PodResourcesEmulator.ActivePod> active = new CopyOnWriteArrayList<>();

  private PodResourcesEmulator podResources;

  @BeforeEach
  void start() {
    harness = PluginHarness.start(client, directory, "npu-node-" + NODES.incrementAndGet());
    node = harness.node;
    die0 = harness.die(0);
    die1 = harness.die(1);
    kubelet = harness.kubelet;
    pods = harness.pods;
  }

  @AfterEach
  void stop() {
    if (podResources != null) {
      podResources.close();
    }
    harness.close();
    // Before the mock shuts down: its Vert.x 5 server waits for each open WebSocket to close.
    client.close();
  }

  /** Serves the kubelet's PodResources API, listing {@link #active}. */
  private void servePodResources() {
    podResources =
        new PodResourcesEmulator(PluginHarness.podResourcesSocket(directory), () -> active).start();
  }

  @Test
  void registersAndAdvertisesOneHealthyDevicePerShareSlot() {
    assertThat(kubelet.registrationsOf(RESOURCE).get(0).endpoint()).isEqualTo("vnpu.sock");
    assertThat(kubelet.options(RESOURCE))
        .as("placement comes from the signed allocation: no preferred allocation, no pre-start")
        .isEqualTo(DevicePluginOptions.getDefaultInstance());
    assertThat(kubelet.devices(RESOURCE))
        .extracting(Device::getID)
        .containsExactly(
            die0 + "-0",
            die0 + "-1",
            die0 + "-2",
            die0 + "-3",
            die1 + "-0",
            die1 + "-1",
            die1 + "-2",
            die1 + "-3");
    assertThat(kubelet.devices(RESOURCE)).extracting(Device::getHealth).containsOnly("Healthy");
    assertThat(kubelet.devices(RESOURCE).get(0).getTopology().getNodes(0).getID()).isEqualTo(0);
  }

  @Test
  void publishesTheInventoryAndAHeartbeatOnTheNode() {
    await().until(() -> pods.nodeAnnotation(AnnotationKeys.NODE_HANDSHAKE) != null);
    NodeRegistration registration =
        pods.codec.decodeRegistration(pods.nodeAnnotation(AnnotationKeys.NODE_REGISTER));
    assertThat(registration.splitMode()).isEqualTo(SplitMode.SOFT);
    assertThat(registration.maxSharesPerChip()).isEqualTo(4);
    assertThat(registration.chips()).extracting(RegisteredChip::dieId).containsExactly(die0, die1);
    Instant first =
        pods.codec.decodeHandshake(pods.nodeAnnotation(AnnotationKeys.NODE_HANDSHAKE)).at();
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                pods.codec
                    .decodeHandshake(pods.nodeAnnotation(AnnotationKeys.NODE_HANDSHAKE))
                    .at()
                    .isAfter(first));
  }

  @Test
  void aHealthChangeReachesListAndWatchAndTheNode() throws IOException {
    harness.setSecondChipHealthy(false);

    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                kubelet.devices(RESOURCE).stream()
                    .filter(d -> d.getID().startsWith(die1))
                    .allMatch(d -> d.getHealth().equals("Unhealthy")));
    assertThat(kubelet.devices(RESOURCE).stream().filter(d -> d.getHealth().equals("Healthy")))
        .hasSize(4);
    await()
        .until(
            () ->
                !pods.codec
                    .decodeRegistration(pods.nodeAnnotation(AnnotationKeys.NODE_REGISTER))
                    .chips()
                    .get(1)
                    .healthy());
  }

  @Test
  void reRegistersWithinASecondAfterTheKubeletRestarts() {
    for (String resource : ACCOUNTED) {
      kubelet.awaitRegistration(resource, 1, Duration.ofSeconds(10));
    }
    kubelet.restart();
    Instant restarted = Instant.now();

    for (String resource : ACCOUNTED) {
      KubeletEmulator.Registration again =
          kubelet.awaitRegistration(resource, 2, Duration.ofSeconds(1));
      assertThat(Duration.between(restarted, again.at())).isLessThan(Duration.ofSeconds(1));
    }
    await().until(() -> kubelet.devices(RESOURCE).size() == 8);
    assertThat(kubelet.connected(RESOURCE)).isTrue();
    await().until(() -> kubelet.devices(ResourceNames.VNPU_CORES).size() == 200);
  }

  @Test
  void aStoppedPluginsDevicesTurnUnhealthyAtOnceAndItsResourceGoesAfterTheGracePeriod() {
    kubelet.endpointStopGracePeriod(Duration.ofMillis(600));
    assertThat(kubelet.devices(RESOURCE)).allMatch(d -> d.getHealth().equals("Healthy"));

    harness.plugin.close();

    await()
        .atMost(Duration.ofSeconds(2))
        .until(
            () ->
                !kubelet.devices(RESOURCE).isEmpty()
                    && kubelet.devices(RESOURCE).stream()
                        .allMatch(d -> d.getHealth().equals("Unhealthy")));
    assertThat(kubelet.connected(RESOURCE)).isFalse();
    await().atMost(Duration.ofSeconds(3)).until(() -> !kubelet.resources().contains(RESOURCE));
    assertThat(kubelet.devices(RESOURCE)).isEmpty();
  }

  @Test
  void aSecondPluginOnTheSameNodeRefusesToStart() {
    assertThatThrownBy(() -> PluginHarness.plugin(client, directory, harness.node))
        .isInstanceOf(ChipOwnership.ChipsManagedElsewhereException.class)
        .hasMessage(
            "another vNPU device plugin already serves "
                + directory.resolve("device-plugins/vnpu.sock")
                + " on this node: two node groups (chart value devicePlugin.nodeGroups) select it;"
                + " give the groups node selectors that no node matches twice");
  }

  @Test
  void refusesToStartBesideAscendsOwnDevicePlugin(@TempDir Path other) throws IOException {
    Files.writeString(other.resolve("inventory.yaml"), "chips:\n  - {type: 910B3}\n");
    Path plugins = Files.createDirectories(other.resolve("device-plugins"));
    Files.writeString(
        plugins.resolve("kubelet_internal_checkpoint"),
        "{\"Data\":{\"PodDeviceEntries\":null,\"RegisteredDevices\":"
            + "{\"huawei.com/Ascend910\":[\"Ascend910-0\"]}},\"Checksum\":1}");

    assertThatThrownBy(() -> PluginHarness.plugin(client, other, "other-node"))
        .isInstanceOf(ChipOwnership.ChipsManagedElsewhereException.class)
        .hasMessageStartingWith(
            "Ascend's device plugin has registered huawei.com/Ascend910 with this node's kubelet");
  }

  @Test
  void advertisesEveryResourceAPodCanAskForEachOnItsOwnSocket() {
    await().until(() -> kubelet.resources().size() == 4);
    assertThat(kubelet.resources()).containsExactlyInAnyOrderElementsOf(ACCOUNTED);
    assertThat(kubelet.registrations())
        .extracting(KubeletEmulator.Registration::endpoint)
        .doesNotHaveDuplicates();
    assertThat(kubelet.devices(ResourceNames.VNPU_CORES)).as("100 per chip").hasSize(200);
    assertThat(kubelet.devices(ResourceNames.VNPU_MEMORY_GIB))
        .as("each 910B3's whole 64 GiB")
        .hasSize(128);
    assertThat(kubelet.devices(ResourceNames.typeResource("910B3")))
        .as("one selector per share slot")
        .hasSize(2 * PluginHarness.SLOTS);
    assertThat(kubelet.devices(ResourceNames.VNPU_CORES))
        .as("a count carries no NUMA node for the topology manager to align")
        .allMatch(device -> !device.hasTopology());
  }

  @Test
  void anUnhealthyChipTakesItsShareOfEveryResource() {
    await().until(() -> kubelet.resources().size() == 4);
    harness.setSecondChipHealthy(false);

    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(
            () -> {
              assertThat(healthy(ResourceNames.VNPU_CORES)).isEqualTo(100);
              assertThat(healthy(ResourceNames.VNPU_MEMORY_GIB)).isEqualTo(64);
              assertThat(healthy(ResourceNames.typeResource("910B3"))).isEqualTo(4);
              assertThat(healthy(RESOURCE)).isEqualTo(4);
            });
  }

  @Test
  void allocateForACountedResourceHandsOutNothingAndLeavesTheAllocationAlone() {
    pods.bind(
        "counted",
        List.of(new ContainerAllocation("main", false, List.of(soft(0, die0, 8192, 30)))));
    await().until(() -> kubelet.resources().size() == 4);

    ContainerAllocateResponse cores =
        kubelet.allocate(
            ResourceNames.VNPU_CORES, kubelet.pickHealthy(ResourceNames.VNPU_CORES, 30, List.of()));
    ContainerAllocateResponse memory =
        kubelet.allocate(
            ResourceNames.VNPU_MEMORY_GIB,
            kubelet.pickHealthy(ResourceNames.VNPU_MEMORY_GIB, 8, List.of()));

    assertThat(cores).isEqualTo(ContainerAllocateResponse.getDefaultInstance());
    assertThat(memory).isEqualTo(ContainerAllocateResponse.getDefaultInstance());
    ContainerAllocateResponse handout = harness.allocate(1);
    assertThat(handout.getDevicesList())
        .extracting(DeviceSpec::getHostPath)
        .contains("/dev/davinci0");
  }

  private long healthy(String resource) {
    return kubelet.devices(resource).stream().filter(d -> d.getHealth().equals("Healthy")).count();
  }

  @Test
  void keepsTryingWhileTheKubeletIsAway() throws InterruptedException {
    kubelet.stop();
    Thread.sleep(300);
    kubelet.restart();

    kubelet.awaitRegistration(RESOURCE, 2, Duration.ofSeconds(2));
    await().until(() -> kubelet.devices(RESOURCE).size() == 8);
  }

  @Test
  void aSoftShareGetsTheChipTheShimAndAReadOnlyConfig() throws IOException {
    String uid =
        pods.bind(
                "bert",
                List.of(new ContainerAllocation("model", false, List.of(soft(0, die0, 8192, 30)))))
            .getMetadata()
            .getUid();

    ContainerAllocateResponse response = allocate(1);

    assertThat(chips(response)).containsExactly(0);
    assertThat(response.getEnvsMap())
        .as("no variable a pod's own env could override chooses the chip")
        .isEmpty();
    assertThat(devicePaths(response))
        .containsExactlyInAnyOrder(
            "/dev/davinci0", "/dev/davinci_manager", "/dev/devmm_svm", "/dev/hisi_hdc");
    Map<String, Mount> mounts = mounts(response);
    assertThat(mounts.get(ShimContract.CONTAINER_LIBRARY).getHostPath())
        .isEqualTo("/opt/vnpu/libvnpu.so");
    assertThat(mounts.get(ShimContract.CONTAINER_LIBRARY).getReadOnly()).isTrue();
    assertThat(Files.readString(Path.of(mounts.get(ShimContract.CONTAINER_PRELOAD).getHostPath())))
        .isEqualTo(ShimContract.CONTAINER_LIBRARY + "\n");
    // The chip's region file alone, not its directory: containers cannot plant files beside it.
    Mount region = mounts.get(ShimContract.chipRegion(die0));
    assertThat(region.getReadOnly()).isFalse();
    assertThat(Path.of(region.getHostPath())).isRegularFile().hasSize(ChipRegion.SIZE);
    assertThat(mounts).doesNotContainKey(ShimContract.CONTAINER_CHIPS + "/" + die0);
    // The container's books are its own: a directory under its hand-out's (keyed by the
    // reservation's nonce), mounted into it alone.
    Mount books = mounts.get(ShimContract.CONTAINER_BOOKS);
    assertThat(books.getReadOnly()).isFalse();
    assertThat(Path.of(books.getHostPath()))
        .isEqualTo(
            ShimContract.hostBooksDirectory(
                directory.resolve("state"), ScheduledPods.nonce("bert"), "model"))
        .isDirectory();
    assertThat(mounts.get(directory.toString()).getReadOnly()).isTrue();

    Path config = Path.of(mounts.get(ShimContract.CONTAINER_CONFIG).getHostPath());
    assertThat(mounts.get(ShimContract.CONTAINER_CONFIG).getReadOnly()).isTrue();
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(config)))
        .isEqualTo("r--r--r--");
    assertThat(new ShimConfigFormat().read(Files.readString(config, StandardCharsets.UTF_8)))
        .isEqualTo(
            new ShimConfig(
                uid,
                ScheduledPods.NAMESPACE,
                "bert",
                "model",
                ShimContract.CONTAINER_BOOKS,
                LogLevel.INFO,
                null,
                List.of(
                    new ShimDevice(
                        die0,
                        8192L << 20,
                        30,
                        AiCorePolicy.ELASTIC,
                        ShimContract.chipRegion(die0)))));

    assertThat(pods.podAnnotation("bert", AnnotationKeys.BIND_PHASE)).isEqualTo("success");
    assertThat(
            pods.codec
                .decodePending(pods.podAnnotation("bert", AnnotationKeys.DEVICES_TO_ALLOCATE))
                .containers())
        .isEmpty();
    assertThat(pods.lockAnnotations()).isEmpty();
  }

  @Test
  void initContainersAreHandedOutFirstAndTheLockHoldsUntilTheLast() {
    pods.bind(
        "pipeline",
        List.of(
            new ContainerAllocation("warmup", true, List.of(soft(1, die1, 1024, 10))),
            new ContainerAllocation("model", false, List.of(soft(0, die0, 4096, 50)))));

    ContainerAllocateResponse warmup = allocate(1);
    assertThat(chips(warmup)).containsExactly(1);
    assertThat(pods.podAnnotation("pipeline", AnnotationKeys.BIND_PHASE)).isEqualTo("allocating");
    assertThat(pods.lockAnnotations()).isNotEmpty();

    ContainerAllocateResponse model =
        allocate(1, List.of(kubelet.devices(RESOURCE).get(7).getID()));
    assertThat(chips(model)).containsExactly(0);
    assertThat(mounts(model)).containsKey(ShimContract.chipRegion(die0));
    assertThat(pods.podAnnotation("pipeline", AnnotationKeys.BIND_PHASE)).isEqualTo("success");
    assertThat(pods.lockAnnotations()).isEmpty();
  }

  @Test
  void aHardShareAsksAscendDockerRuntimeForTheTemplateAndGetsNoShim() {
    pods.bind(
        "hard",
        List.of(new ContainerAllocation("infer", false, List.of(hard(1, die1, "vir05_1c_16g")))));

    ContainerAllocateResponse response = allocate(1);

    assertThat(response.getEnvsMap())
        .containsEntry("ASCEND_VISIBLE_DEVICES", "1")
        .containsEntry("ASCEND_VNPU_SPECS", "vir05_1c_16g")
        .containsEntry("ASCEND_RUNTIME_OPTIONS", "NODRV")
        .doesNotContainKey(ShimContract.CONFIG_ENV);
    assertThat(devicePaths(response))
        .doesNotContain("/dev/davinci1")
        .contains("/dev/davinci_manager");
    assertThat(mounts(response))
        .doesNotContainKeys(ShimContract.CONTAINER_PRELOAD, ShimContract.CONTAINER_CONFIG);
  }

  @Test
  void wholeCardsGetTheirDevicesOnly() {
    pods.bind(
        "train",
        List.of(
            new ContainerAllocation("trainer", false, List.of(whole(0, die0), whole(1, die1)))));

    ContainerAllocateResponse response = allocate(2);

    assertThat(chips(response)).containsExactly(0, 1);
    assertThat(devicePaths(response)).contains("/dev/davinci0", "/dev/davinci1");
    assertThat(response.getEnvsMap()).isEmpty();
    assertThat(mounts(response).keySet()).containsExactly(directory.toString());
    assertThat(pods.podAnnotation("train", AnnotationKeys.BIND_PHASE)).isEqualTo("success");
  }

  @Test
  void anAppContainerReusingItsInitContainersDevicesGetsItsOwnAllocation() {
    // kubelet devicemanager/manager.go Allocate(): an init container's devices are reused by the
    // app containers after it, so the next container's call carries the same IDs.
    pods.bind(
        "pipeline",
        List.of(
            new ContainerAllocation("warmup", true, List.of(soft(1, die1, 1024, 10))),
            new ContainerAllocation("model", false, List.of(soft(0, die0, 4096, 50)))));
    List<String> ids = kubelet.pickHealthy(RESOURCE, 1, List.of());

    ContainerAllocateResponse warmup = kubelet.allocate(RESOURCE, ids);
    ContainerAllocateResponse model = kubelet.allocate(RESOURCE, ids);

    assertThat(chips(warmup)).containsExactly(1);
    assertThat(chips(model)).containsExactly(0);
    assertThat(pods.podAnnotation("pipeline", AnnotationKeys.BIND_PHASE)).isEqualTo("success");
    assertThat(pods.lockAnnotations()).isEmpty();
  }

  @Test
  void aRepeatedCallForTheSameContainerGetsTheSameAnswerWhateverThePodsOwnerDidToItsAnnotations() {
    pods.bind(
        "bert", List.of(new ContainerAllocation("model", false, List.of(soft(0, die0, 8192, 30)))));
    List<String> ids = kubelet.pickHealthy(RESOURCE, 1, List.of());

    ContainerAllocateResponse first = kubelet.allocate(RESOURCE, ids);
    ContainerAllocateResponse again = kubelet.allocate(RESOURCE, ids);
    assertThat(again).isEqualTo(first);

    client
        .pods()
        .inNamespace(ScheduledPods.NAMESPACE)
        .withName("bert")
        .edit(
            pod -> {
              pod.getMetadata().setAnnotations(null);
              return pod;
            });
    assertThat(
            client
                .pods()
                .inNamespace(ScheduledPods.NAMESPACE)
                .withName("bert")
                .get()
                .getMetadata()
                .getAnnotations())
        .isNullOrEmpty();
    assertThat(kubelet.allocate(RESOURCE, ids)).isEqualTo(first);
  }

  @Test
  void aForgedAllocationIsRefusedTheSchedulingFailsAndTheLockIsReleased() {
    pods.bind(
        "bert", List.of(new ContainerAllocation("model", false, List.of(soft(0, die0, 8192, 30)))));
    String signed = pods.podAnnotation("bert", AnnotationKeys.ALLOCATION);
    new org.vnpu.kube.AnnotationPatches(client)
        .pod(
            ScheduledPods.NAMESPACE,
            "bert",
            Map.of(
                AnnotationKeys.ALLOCATION,
                signed.replace("\"memoryMiB\":8192", "\"memoryMiB\":65536")));

    assertRefused(1, "the signature of huawei.com/vnpu-ids-new does not verify");
    assertThat(pods.podAnnotation("bert", AnnotationKeys.BIND_PHASE)).isEqualTo("failed");
    assertThat(pods.lockAnnotations()).isEmpty();
    assertThat(directory.resolve("state/pods")).isEmptyDirectory();
  }

  @Test
  void anAllocationOnAChipThatIsNoLongerThereOrHealthyIsRefused() {
    pods.bind(
        "replaced",
        List.of(
            new ContainerAllocation("model", false, List.of(soft(0, "REPLACED-DIE", 1024, 10)))));
    assertRefused(1, "was allocated a vNPU on chip 0 (REPLACED-DIE), but chip 0 is die " + die0);

    harness.setSecondChipHealthy(false);
    await().until(() -> healthy(RESOURCE) == 4);
    pods.bind(
        "failed",
        List.of(new ContainerAllocation("model", false, List.of(soft(1, die1, 1024, 10)))));
    assertRefused(1, "but chip 1 is unhealthy now");
  }

  @Test
  void anAllocationSignedWithAnotherKeyIsRefused() {
    AllocationSigner stranger = new AllocationSigner(SigningKey.generate(), pods.codec);
    pods.bind(
        "bert",
        node,
        List.of(new ContainerAllocation("model", false, List.of(soft(0, die0, 8192, 30)))),
        stranger);

    assertRefused(1, "which this node does not know");
  }

  @Test
  void anOlderAllocationOfTheSamePodIsNotHandedOutAgain() {
    Pod pod =
        pods.bind(
            "bert",
            List.of(new ContainerAllocation("model", false, List.of(soft(0, die0, 8192, 30)))));
    // A later reservation of the same pod on the same node: its lock names a new nonce, while the
    // pod's owner put back the allocation signed for the first.
    pods.lock(
        pod.getMetadata().getUid(), "bert", Instant.now().plusSeconds(60), "a-later-reservation");

    assertRefused(1, "its allocation was signed for another reservation (nonce bert-reservation)");
  }

  @Test
  void aPodBoundElsewhereIsRefused() {
    pods.bind(
        "bert",
        "other-node",
        List.of(new ContainerAllocation("model", false, List.of(soft(0, die0, 8192, 30)))),
        pods.signer);

    assertRefused(1, "pod serving/bert is bound to node other-node, not to this node " + node);
    assertThat(pods.podAnnotation("bert", AnnotationKeys.BIND_PHASE)).isEqualTo("failed");
  }

  @Test
  void withoutALockNothingIsHandedOut() {
    assertRefused(
        1,
        "node "
            + node
            + " holds no lock entry (no huawei.com/vnpu-node-lock.<pod UID> annotation on Lease"
            + " vnpu-node-locks/"
            + node);
  }

  @Test
  void anExpiredLockIsRefused() {
    String uid =
        pods.bind(
                "bert",
                List.of(new ContainerAllocation("model", false, List.of(soft(0, die0, 8192, 30)))))
            .getMetadata()
            .getUid();
    pods.lock(uid, "bert", Instant.now().minusSeconds(1));

    assertRefused(
        1,
        "no pod reserved on node "
            + node
            + " asks for 1 vNPU(s) now (serving/bert asks for [1], expired at");
  }

  @Test
  void aLockNamingAnotherUidIsRefused() {
    pods.bind(
        "bert", List.of(new ContainerAllocation("model", false, List.of(soft(0, die0, 8192, 30)))));
    pods.lock("not-the-uid", "bert", Instant.now().plusSeconds(60));

    assertRefused(1, "but the lock on node " + node + " names UID not-the-uid");
    assertThat(pods.podAnnotation("bert", AnnotationKeys.BIND_PHASE)).isEqualTo("allocating");
  }

  @Test
  void aMalformedAnnotationIsRefusedNamingTheKey() {
    pods.bind(
        "bert", List.of(new ContainerAllocation("model", false, List.of(soft(0, die0, 8192, 30)))));
    new org.vnpu.kube.AnnotationPatches(client)
        .pod(ScheduledPods.NAMESPACE, "bert", Map.of(AnnotationKeys.DEVICES_TO_ALLOCATE, "model"));

    assertRefused(1, "pod serving/bert: huawei.com/vnpu-devices-to-allocate: ");
  }

  @Test
  void podsAskingForOtherVnpuCountsAreReservedAtOnceAndEachGetsItsOwnInAnyOrder() throws Exception {
    pods.bind(
        "small",
        List.of(new ContainerAllocation("model", false, List.of(soft(0, die0, 8192, 30)))));
    pods.bindAlongside(
        "large",
        List.of(
            new ContainerAllocation(
                "model", false, List.of(soft(0, die0, 4096, 10), soft(1, die1, 4096, 10)))));
    assertThatThrownBy(
            () ->
                pods.bindAlongside(
                    "another-small",
                    List.of(
                        new ContainerAllocation("model", false, List.of(soft(1, die1, 8192, 30))))))
        .hasMessageContaining("is locked by pod serving/small");

    // The kubelet admits the pod asking for 2 first, although it was reserved second.
    assertThat(chips(allocate(2))).containsExactly(0, 1);
    assertThat(pods.podAnnotation("large", AnnotationKeys.BIND_PHASE)).isEqualTo("success");
    assertThat(pods.podAnnotation("small", AnnotationKeys.BIND_PHASE)).isEqualTo("allocating");
    assertThat(chips(allocate(1))).containsExactly(0);
    assertThat(pods.podAnnotation("small", AnnotationKeys.BIND_PHASE)).isEqualTo("success");
    assertThat(pods.lockAnnotations()).isEmpty();
  }

  @Test
  void podsOfOneShapeStandTogetherAndTheKubeletTellsWhoGotWhichHandout() throws Exception {
    servePodResources();
    String a = sameShape("a", soft(0, die0, 8192, 30));
    String b = sameShape("b", soft(1, die1, 8192, 30));
    assertThat(pods.locks().holders()).hasSize(2);

    // The kubelet admits b first; Allocate serves the earliest reservation, a's.
    List<String> first = kubelet.pickHealthy(RESOURCE, 1, Set.of());
    assertThat(chips(allocate(1, first))).containsExactly(0);
    active.add(activePod("b", first));
    assertThat(pods.locks().handouts())
        .singleElement()
        .satisfies(handout -> assertThat(handout.signedFor().uid()).isEqualTo(a));
    // b's own reservation still stands: who holds a's hand-out is not recorded yet.
    Thread.sleep(3 * DevicePluginSettings.HANDOUT_CHECK_INTERVAL.toMillis());
    assertThat(pods.locks().handouts().get(0).heldBy()).isNull();

    List<String> second = kubelet.pickHealthy(RESOURCE, 1, Set.copyOf(first));
    assertThat(chips(allocate(1, second))).containsExactly(1);
    active.add(activePod("a", second));

    awaitHolders(tuple(a, b), tuple(b, a));
    assertThat(pods.locks().holders()).isEmpty();
  }

  @Test
  void aReservedPodWhoseBindingHasNotLandedIsNotServedAndKeepsItsEntry() throws Exception {
    String a = reservedUnbound("a");
    sameShape("b", soft(1, die1, 8192, 30));

    // The kubelet admits b, the only pod bound here; a's binding is still on its way.
    List<String> ids = kubelet.pickHealthy(RESOURCE, 1, Set.of());
    assertThat(chips(allocate(1, ids))).containsExactly(1);

    assertThat(pods.locks().of(a)).isPresent();
    assertThat(pods.podAnnotation("a", AnnotationKeys.BIND_PHASE)).isEqualTo("allocating");
    assertThat(pods.podAnnotation("b", AnnotationKeys.BIND_PHASE)).isEqualTo("success");
  }

  @Test
  void aCallNoBoundPodWaitsForIsRefusedAndLeavesTheReservationsAlone() throws Exception {
    String a = reservedUnbound("a");

    assertRefused(1, "pod serving/a is not bound to a node, not to this node " + node);
    assertThat(pods.locks().of(a)).isPresent();
    assertThat(pods.podAnnotation("a", AnnotationKeys.BIND_PHASE)).isEqualTo("allocating");
  }

  @Test
  void aCallThatComesBeforeItsPodsReservationIsWrittenWaitsForIt() throws Exception {
    // Volcano binds the pod as soon as its session commits; the scheduler writes the reservation
    // after answering allocateFunc, so the kubelet may admit the pod before it is written.
    CompletableFuture<ContainerAllocateResponse> call =
        CompletableFuture.supplyAsync(() -> allocate(1));
    Thread.sleep(300);
    assertThat(call).isNotDone();

    pods.bind(
        "late", List.of(new ContainerAllocation("model", false, List.of(soft(0, die0, 8192, 30)))));

    assertThat(chips(call.get(10, TimeUnit.SECONDS))).containsExactly(0);
    assertThat(pods.podAnnotation("late", AnnotationKeys.BIND_PHASE)).isEqualTo("success");
  }

  @Test
  void aCallThatFindsTheEntryBeforeThePodsAllocationWaitsForTheAllocation() throws Exception {
    // The scheduler writes the node's entry, then the pod's allocation; the pod is bound already.
    List<ContainerAllocation> containers =
        List.of(new ContainerAllocation("model", false, List.of(soft(0, die0, 8192, 30))));
    Pod pod = pods.create("late", node, containers);
    pods.lock(pod.getMetadata().getUid(), "late", Instant.now().plus(Duration.ofMinutes(5)));
    CompletableFuture<ContainerAllocateResponse> call =
        CompletableFuture.supplyAsync(() -> allocate(1));
    Thread.sleep(300);
    assertThat(call).isNotDone();

    pods.annotate(pod, containers, pods.signer);

    assertThat(chips(call.get(10, TimeUnit.SECONDS))).containsExactly(0);
    assertThat(pods.podAnnotation("late", AnnotationKeys.BIND_PHASE)).isEqualTo("success");
  }

  @Test
  void devicesAgainAfterTheirSwappedHolderIsGoneAreNoRepeatForThePodTheyWereSignedFor()
      throws Exception {
    servePodResources();
    String a = sameShape("a", soft(0, die0, 8192, 30));
    String b = sameShape("b", soft(1, die1, 8192, 30));
    // b is admitted on a's reservation, a on b's; the kubelet tells who holds what.
    List<String> first = kubelet.pickHealthy(RESOURCE, 1, Set.of());
    assertThat(chips(allocate(1, first))).containsExactly(0);
    active.add(activePod("b", first));
    List<String> second = kubelet.pickHealthy(RESOURCE, 1, Set.copyOf(first));
    allocate(1, second);
    active.add(activePod("a", second));
    awaitHolders(tuple(a, b), tuple(b, a));

    // b goes; the kubelet gives its devices to c, reserved on chip 1.
    client.pods().inNamespace(ScheduledPods.NAMESPACE).withName("b").delete();
    active.removeIf(pod -> pod.name().equals("b"));
    sameShape("c", soft(1, die1, 8192, 30));

    assertThat(chips(allocate(1, first))).containsExactly(1);
    assertThat(pods.podAnnotation("c", AnnotationKeys.BIND_PHASE)).isEqualTo("success");
  }

  /** The chips a hand-out gives (its device nodes, or a hard template's chip). */
  private static List<Integer> chips(ContainerAllocateResponse response) {
    return Handouts.chips(
        response.getDevicesList().stream().map(DeviceSpec::getContainerPath).toList(),
        response.getEnvsMap());
  }

  /** Reserves and binds {@code name} beside pods of shape "same", with one vNPU; its UID. */
  private String sameShape(String name, VnpuAssignment vnpu) throws Exception {
    return pods.bindAlongside(
            name, "same", List.of(new ContainerAllocation("model", false, List.of(vnpu))))
        .getMetadata()
        .getUid();
  }

  /** Reserves {@code name} beside pods of shape "same", its binding still on its way; its UID. */
  private String reservedUnbound(String name) throws Exception {
    return pods.reserveAlongside(
            name,
            null,
            "same",
            List.of(new ContainerAllocation("model", false, List.of(soft(0, die0, 8192, 30)))))
        .getMetadata()
        .getUid();
  }

  @Test
  void aHandoutIsNotResolvedWhileThePodItWasSignedForStillWaitsForItsAdmission() throws Exception {
    servePodResources();
    Map<String, String> uids = new HashMap<>();
    List<String> dies = List.of(die0, die1, die0);
    for (int i = 0; i < 3; i++) {
      String name = List.of("a", "b", "c").get(i);
      uids.put(
          name,
          pods.bindAlongside(
                  name,
                  "same",
                  List.of(
                      new ContainerAllocation(
                          "model", false, List.of(soft(i % 2, dies.get(i), 4096, 20)))))
              .getMetadata()
              .getUid());
    }
    // The kubelet admits c on a's reservation, then a on b's: b still waits, and c's entry is
    // the one left for it.
    List<String> first = kubelet.pickHealthy(RESOURCE, 1, Set.of());
    allocate(1, first);
    active.add(activePod("c", first));
    List<String> second = kubelet.pickHealthy(RESOURCE, 1, Set.copyOf(first));
    allocate(1, second);
    active.add(activePod("a", second));
    Thread.sleep(3 * DevicePluginSettings.HANDOUT_CHECK_INTERVAL.toMillis());

    // a holds b's hand-out, but b waits: settling it now would leave b's annotations naming a
    // reservation no entry serves, and c's entry without a record that keeps it.
    assertThat(pods.locks().handouts())
        .filteredOn(h -> h.signedFor().uid().equals(uids.get("b")))
        .singleElement()
        .satisfies(h -> assertThat(h.heldBy()).isNull());
    assertThat(pods.locks().of(uids.get("c"))).isPresent();

    Set<String> taken = new HashSet<>(first);
    taken.addAll(second);
    List<String> third = kubelet.pickHealthy(RESOURCE, 1, taken);
    allocate(1, third);
    active.add(activePod("b", third));
    awaitHolders(
        tuple(uids.get("a"), uids.get("c")),
        tuple(uids.get("b"), uids.get("a")),
        tuple(uids.get("c"), uids.get("b")));
    assertThat(pods.locks().holders()).isEmpty();
  }

  /** Waits until the node's hand-out records are these, each (signed for, held by) pod UID. */
  private void awaitHolders(Tuple... records) {
    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(
            () ->
                assertThat(pods.locks().handouts())
                    .extracting(
                        h -> h.signedFor().uid(), h -> h.heldBy() == null ? null : h.heldBy().uid())
                    .containsExactlyInAnyOrder(records));
  }

  private static PodResourcesEmulator.ActivePod activePod(String name, List<String> ids) {
    return new PodResourcesEmulator.ActivePod(
        ScheduledPods.NAMESPACE, name, List.of("model"), Map.of("model", Map.of(RESOURCE, ids)));
  }

  @Test
  void aStartedPodKeepsTheNodeUntilItsLastContainerAndTheEntryCountsTheHandouts() {
    pods.bind(
        "bert",
        List.of(
            new ContainerAllocation("warmup", true, List.of(soft(0, die0, 4096, 10))),
            new ContainerAllocation("model", false, List.of(soft(1, die1, 8192, 30)))));

    allocate(1);
    assertThat(pods.locks().holders())
        .singleElement()
        .satisfies(e -> assertThat(e.handedOut()).isEqualTo(1));
    allocate(1);
    assertThat(pods.locks().holders()).isEmpty();
  }

  @Test
  void aDeviceCountNoReservedPodAsksForIsRefused() {
    pods.bind(
        "bert", List.of(new ContainerAllocation("model", false, List.of(soft(0, die0, 8192, 30)))));

    assertRefused(
        2,
        "no pod reserved on node " + node + " asks for 2 vNPU(s) now (serving/bert asks for [1])");
  }

  @Test
  void aDeviceCountOtherThanTheNextContainersIsRefused() {
    pods.bind(
        "bert",
        List.of(
            new ContainerAllocation("model", false, List.of(soft(0, die0, 8192, 30))),
            new ContainerAllocation(
                "cache", false, List.of(soft(0, die0, 4096, 10), soft(1, die1, 4096, 10)))));

    assertRefused(
        2,
        "the kubelet asks for 2 device(s) for the next container, but container model was allocated 1 vNPU(s)");
  }

  @Test
  void theFilesOfAPodAreRemovedWhenItIsGone() {
    pods.bind(
        "bert", List.of(new ContainerAllocation("model", false, List.of(soft(0, die0, 8192, 30)))));
    allocate(1);
    assertThat(directory.resolve("state/pods")).isNotEmptyDirectory();

    client.pods().inNamespace(ScheduledPods.NAMESPACE).withName("bert").delete();

    await().atMost(Duration.ofSeconds(5)).until(() -> isEmpty(directory.resolve("state/pods")));
  }

  private ContainerAllocateResponse allocate(int count) {
    return harness.allocate(count);
  }

  private ContainerAllocateResponse allocate(int count, List<String> ids) {
    assertThat(ids).hasSize(count);
    return kubelet.allocate(RESOURCE, ids);
  }

  private void assertRefused(int count, String message) {
    assertThatThrownBy(() -> allocate(count))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION))
        .hasMessageContaining(message);
  }

  private static List<String> devicePaths(ContainerAllocateResponse response) {
    return response.getDevicesList().stream().map(DeviceSpec::getContainerPath).toList();
  }

  private static Map<String, Mount> mounts(ContainerAllocateResponse response) {
    return response.getMountsList().stream()
        .collect(Collectors.toMap(Mount::getContainerPath, mount -> mount));
  }

  private static boolean isEmpty(Path directory) throws IOException {
    try (var files = Files.list(directory)) {
      return files.findAny().isEmpty();
    }
  }
}
