package org.vnpu.dra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.AllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimStatus;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.grpc.Server;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.vnpu.api.LogLevel;
import org.vnpu.api.codec.ShimConfigFormat;
import org.vnpu.api.payload.ShimConfig;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.driver.SimulatedNpuDriver;
import org.vnpu.kubelet.DraKubeletEmulator;
import org.vnpu.kubelet.UnixSockets;
import org.vnpu.kubelet.dra.v1.Claim;
import org.vnpu.kubelet.dra.v1.NodePrepareResourceResponse;
import org.vnpu.sandbox.ApiServer;
import org.vnpu.testkit.GoldenFile;

/**
 * The DRA driver against a DRA kubelet emulator on real Unix sockets and the sandbox's API server,
 * which stores ResourceSlices only as a real one would (upstream's validation, gated fields
 * dropped): registration, ResourceSlices in each sharing mode, prepare and unprepare with CDI specs
 * and shim configs, a plugin restart with its checkpoint, and the errors the kubelet gets back.
 */
class DraDriverTest {

  private static final String DRIVER = DraSettings.DEFAULT_DRIVER_NAME;
  private static final String NODE = "npu-node";

  @TempDir Path directory;
  private ApiServer api;
  private KubernetesClient client;
  private DraKubeletEmulator kubelet;
  private DraDriver driver;

  @BeforeEach
  void startApiServer() {
    api = ApiServer.start(0);
    client = api.client();
  }

  @AfterEach
  void stop() {
    if (driver != null) {
      driver.close();
    }
    if (kubelet != null) {
      kubelet.close();
    }
    api.close();
  }

  @ParameterizedTest
  @EnumSource(Sharing.class)
  void aSixteenChipNodeIsPublishedInSlicesTheApiServerAccepts(Sharing sharing) throws IOException {
    // A 310P3 reports 44280 MiB through DCMI: not a whole number of GiB.
    inventory("chips:\n  - {type: 310P3, count: 16, memoryMiB: 44280}\n");

    start(sharing, 4);

    List<ResourceSlice> slices = slices();
    assertThat(slices.stream().mapToInt(s -> s.getSpec().getDevices().size()).sum())
        .isEqualTo(sharing == Sharing.PROFILES ? 64 : sharing == Sharing.PARTITIONABLE ? 80 : 16);
    if (sharing == Sharing.PARTITIONABLE) {
      assertThat(slices)
          .filteredOn(s -> !s.getSpec().getSharedCounters().isEmpty())
          .extracting(s -> s.getSpec().getSharedCounters().size())
          .containsExactly(8, 8);
    }
    if (sharing == Sharing.CONSUMABLE) {
      assertThat(
              slices
                  .get(0)
                  .getSpec()
                  .getDevices()
                  .get(0)
                  .getCapacity()
                  .get("memory")
                  .getRequestPolicy()
                  .getValidRange()
                  .getMax())
          .isEqualTo(new Quantity("44032Mi"));
    }
  }

  @Test
  void registersWithTheKubeletAndPublishesOneSliceOfProfiles() throws IOException {
    start(Sharing.PROFILES, 4);

    assertThat(kubelet.awaitPlugin(DRIVER, Duration.ofSeconds(5)).info().getEndpoint())
        .isEqualTo(directory.resolve("plugins/dra.sock").toString());
    List<ResourceSlice> slices = slices();
    assertThat(slices).hasSize(1);
    ResourceSlice slice = slices.get(0);
    assertThat(slice.getSpec().getDriver()).isEqualTo(DRIVER);
    assertThat(slice.getSpec().getNodeName()).isEqualTo(NODE);
    assertThat(slice.getSpec().getPool().getName()).isEqualTo(NODE);
    assertThat(slice.getSpec().getPool().getGeneration()).isEqualTo(1);
    assertThat(slice.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(o -> assertThat(o.getKind()).isEqualTo("Node"));
    assertThat(slice.getSpec().getDevices())
        .extracting(d -> d.getName())
        .containsExactly(
            "npu-0-1of4",
            "npu-0-2of4",
            "npu-0-3of4",
            "npu-0-4of4",
            "npu-1-1of4",
            "npu-1-2of4",
            "npu-1-3of4",
            "npu-1-4of4");
    var device = slice.getSpec().getDevices().get(0);
    assertThat(device.getAttributes().get("type").getString()).isEqualTo("910B3");
    assertThat(device.getAttributes().get("dieID").getString()).isEqualTo("SIM-npu-node-0");
    assertThat(device.getAttributes().get("wholeCard").getBool()).isFalse();
    assertThat(device.getCapacity().get("memory").getValue()).isEqualTo(new Quantity("16384Mi"));
    assertThat(device.getCapacity().get("aiCore").getValue()).isEqualTo(new Quantity("25"));
    assertThat(device.getConsumesCounters()).isNullOrEmpty();
  }

  @Test
  void aRestartedKubeletWipesTheSlicesAndTheDriverPublishesThemAgainWithinThePollInterval()
      throws IOException {
    start(Sharing.PARTITIONABLE, 2);
    List<String> names = slices().stream().map(s -> s.getMetadata().getName()).toList();
    long generation = slices().get(0).getSpec().getPool().getGeneration();

    kubelet.close();
    kubelet = kubelet(); // deletes every slice of the node as it starts

    await()
        .atMost(Duration.ofSeconds(2))
        .until(() -> slices().stream().map(s -> s.getMetadata().getName()).toList(), names::equals);
    assertThat(slices().get(0).getSpec().getPool().getGeneration()).isGreaterThan(generation);
  }

  @Test
  void aDeregisteredDriversSlicesAreWipedAfterTheKubeletsWait() throws IOException {
    start(Sharing.PROFILES, 2);
    kubelet.wipingDelay(Duration.ofMillis(300));

    driver.close(); // removes its registration socket
    driver = null;

    await().atMost(Duration.ofSeconds(3)).until(() -> slices().isEmpty());
  }

  @Test
  void aSecondRegistrationForTheSameEndpointIsRefused() throws IOException {
    start(Sharing.PROFILES, 2);
    Server second =
        UnixSockets.serve(
            directory.resolve("plugins_registry/second.sock"),
            new DraServices.Registration(settings(Sharing.PROFILES, 2)));
    try {
      await()
          .atMost(Duration.ofSeconds(2))
          .until(
              () ->
                  kubelet.rejections().stream()
                      .anyMatch(
                          r -> r.startsWith("second.sock") && r.contains("already registered")));
      assertThat(kubelet.registered(DRIVER)).isTrue();
    } finally {
      second.shutdownNow();
    }
  }

  @Test
  void withDraPartitionableDevicesOffTheDriverRefusesToStartAndLeavesNoSlices() throws IOException {
    api.close();
    api = ApiServer.start(0, request -> {}, Set.of("DRAPartitionableDevices"));
    client = api.client();

    assertThatThrownBy(() -> start(Sharing.PARTITIONABLE, 2))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("feature gate DRAPartitionableDevices is off")
        .hasMessageContaining("--sharing profiles");
    assertThat(slices()).isEmpty();

    kubelet.close();
    start(Sharing.PROFILES, 2);
    assertThat(slices()).hasSize(1);
  }

  @Test
  void partitionableDevicesDrawOnTheChipsCountersInASliceOfTheirOwn() throws IOException {
    start(Sharing.PARTITIONABLE, 2);

    List<ResourceSlice> slices = slices();
    assertThat(slices).hasSize(2);
    assertThat(slices.get(0).getSpec().getSharedCounters())
        .extracting(c -> c.getName())
        .containsExactly("npu-0", "npu-1");
    assertThat(
            slices
                .get(0)
                .getSpec()
                .getSharedCounters()
                .get(0)
                .getCounters()
                .get("memory")
                .getValue())
        .isEqualTo(new Quantity("65536Mi"));
    assertThat(slices.get(0).getSpec().getDevices()).isNullOrEmpty();
    assertThat(slices).allMatch(s -> s.getSpec().getPool().getResourceSliceCount() == 2);
    var devices = slices.get(1).getSpec().getDevices();
    assertThat(devices)
        .extracting(d -> d.getName())
        .containsExactly("npu-0", "npu-0-1of2", "npu-0-2of2", "npu-1", "npu-1-1of2", "npu-1-2of2");
    assertThat(devices.get(0).getConsumesCounters().get(0).getCounters().get("aicore").getValue())
        .isEqualTo(new Quantity("100"));
    assertThat(devices.get(1).getConsumesCounters().get(0).getCounterSet()).isEqualTo("npu-0");
    assertThat(devices.get(1).getConsumesCounters().get(0).getCounters().get("aicore").getValue())
        .isEqualTo(new Quantity("50"));
  }

  @Test
  void consumableDevicesLetClaimsAskForTheirShare() throws Exception {
    start(Sharing.CONSUMABLE, 1);

    var device = slices().get(0).getSpec().getDevices().get(0);
    assertThat(device.getAllowMultipleAllocations()).isTrue();
    assertThat(device.getCapacity().get("aiCore").getRequestPolicy().getValidRange().getMax())
        .isEqualTo(new Quantity("100"));

    String share =
        claim(
            "share", "npu-1", Map.of("aiCore", new Quantity("30"), "memory", new Quantity("8Gi")));
    NodePrepareResourceResponse prepared = prepare("share", share);

    assertThat(prepared.getError()).isEmpty();
    ShimConfig config = shimConfig(share, "npu-1");
    assertThat(config.devices().get(0).cores()).isEqualTo(30);
    assertThat(config.devices().get(0).memoryBytes()).isEqualTo(8L << 30);
    assertThat(config.devices().get(0).dieId()).isEqualTo("SIM-npu-node-1");
  }

  @Test
  void aSubRequestIsReportedUnderItsRequestAndASharedDeviceUnderItsShare() throws Exception {
    start(Sharing.CONSUMABLE, 1);
    String share = "5b1f7c9e-3d2a-4e8b-9f60-1c2d3e4f5a6b";
    String uid =
        claim(
            "fallback",
            "npu/small",
            "npu-0",
            Map.of("aiCore", new Quantity("20"), "memory", new Quantity("4Gi")),
            share);

    NodePrepareResourceResponse prepared = prepare("fallback", uid);

    assertThat(prepared.getError()).isEmpty();
    // The container names request "npu"; the kubelet gives it the devices reported under it.
    assertThat(prepared.getDevices(0).getRequestNamesList()).containsExactly("npu");
    assertThat(DraKubeletEmulator.cdiDevices(prepared, "npu"))
        .containsExactly(DRIVER + "/npu=" + uid + "-npu-0");
    assertThat(prepared.getDevices(0).getShareId()).isEqualTo(share);
    assertThat(shimConfig(uid, "npu-0").devices().get(0).cores()).isEqualTo(20);
  }

  @Test
  void prepareWritesTheCdiSpecAndUnprepareRemovesItBothIdempotent() throws Exception {
    start(Sharing.PROFILES, 4);
    String bert = claim("bert", "npu-0-2of4", null);

    NodePrepareResourceResponse first = prepare("bert", bert);
    NodePrepareResourceResponse again = prepare("bert", bert);

    assertThat(first.getError()).isEmpty();
    assertThat(first.getDevices(0).getDeviceName()).isEqualTo("npu-0-2of4");
    assertThat(first.getDevices(0).getPoolName()).isEqualTo(NODE);
    assertThat(first.getDevices(0).getRequestNamesList()).containsExactly("npu");
    assertThat(first.getDevices(0).getCdiDeviceIdsList())
        .containsExactly(DRIVER + "/npu=" + bert + "-npu-0-2of4");
    assertThat(again).isEqualTo(first);
    Path spec = directory.resolve("cdi/vnpu.huawei.com_npu-" + bert + ".json");
    GoldenFile.assertMatches(
        "cdi-soft-share.json",
        Files.readString(spec).replace(directory.toString(), "$DIR").replace(bert, "$UID"));
    assertThat(shimConfig(bert, "npu-0-2of4").devices().get(0).memoryBytes()).isEqualTo(16L << 30);

    for (int i = 0; i < 2; i++) {
      var unprepared = kubelet.unprepare(DRIVER, List.of(ref("bert", bert)));
      assertThat(unprepared.getClaimsMap().get(bert).getError()).isEmpty();
    }
    assertThat(spec).doesNotExist();
    assertThat(directory.resolve("state/pods").resolve(bert)).doesNotExist();
  }

  @Test
  void aWholeCardGetsItsChipWithoutTheShim() throws Exception {
    start(Sharing.PROFILES, 1);
    String train = claim("train", "npu-1", null);

    assertThat(prepare("train", train).getError()).isEmpty();
    GoldenFile.assertMatches(
        "cdi-whole-card.json",
        Files.readString(directory.resolve("cdi/vnpu.huawei.com_npu-" + train + ".json"))
            .replace(directory.toString(), "$DIR")
            .replace(train, "$UID"));
  }

  @Test
  void aRestartedPluginRegistersAgainAndAnswersFromItsCheckpoint() throws Exception {
    start(Sharing.PROFILES, 4);
    String bert = claim("bert", "npu-1-1of4", null);
    NodePrepareResourceResponse before = prepare("bert", bert);
    client.resources(ResourceClaim.class).inNamespace("serving").withName("bert").delete();

    driver.close();
    await().until(() -> !kubelet.registered(DRIVER));
    driver = DraDriver.start(settings(Sharing.PROFILES, 4), npus(), client);
    kubelet.awaitPlugin(DRIVER, Duration.ofSeconds(5));

    assertThat(prepare("bert", bert)).isEqualTo(before);
    assertThat(slices().get(0).getSpec().getPool().getGeneration()).isEqualTo(2);
    kubelet.unprepare(DRIVER, List.of(ref("bert", bert)));
    assertThat(directory.resolve("cdi/vnpu.huawei.com_npu-" + bert + ".json")).doesNotExist();
  }

  @Test
  void theKubeletIsToldWhyAClaimCannotBePrepared() throws Exception {
    start(Sharing.PROFILES, 4);
    String elsewhere = claim("elsewhere", "npu-7-1of4", null);

    assertThat(prepare("ghost", "uid-ghost").getError())
        .isEqualTo("resource claim serving/ghost does not exist");
    assertThat(prepare("elsewhere", elsewhere).getError())
        .contains("device npu-7-1of4 of claim serving/elsewhere is not offered by node npu-node");
    assertThat(prepare("elsewhere", "uid-other").getError())
        .contains("has UID " + elsewhere + ", not uid-other");
  }

  @Test
  void anUnhealthyChipLeavesTheSlices() throws Exception {
    start(Sharing.PROFILES, 2);
    inventory(false);

    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> slices().get(0).getSpec().getDevices().size() == 2);
    assertThat(slices().get(0).getSpec().getDevices())
        .extracting(d -> d.getName())
        .containsExactly("npu-0-1of2", "npu-0-2of2");
    assertThat(slices().get(0).getSpec().getPool().getGeneration()).isEqualTo(2);
  }

  // ---- helpers ----

  private void start(Sharing sharing, int slices) throws IOException {
    client
        .nodes()
        .resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build())
        .createOr(NonDeletingOperation::update);
    if (!Files.exists(directory.resolve("inventory.yaml"))) {
      inventory(true);
    }
    kubelet = kubelet();
    driver = DraDriver.start(settings(sharing, slices), npus(), client);
    kubelet.awaitPlugin(DRIVER, Duration.ofSeconds(5));
  }

  /** A DRA kubelet emulator that wipes this node's slices in the API server, as the kubelet. */
  private DraKubeletEmulator kubelet() {
    return new DraKubeletEmulator(
            directory.resolve("plugins_registry"),
            driver ->
                slices().stream()
                    .filter(s -> NODE.equals(s.getSpec().getNodeName()))
                    .filter(s -> driver == null || driver.equals(s.getSpec().getDriver()))
                    .forEach(s -> client.resources(ResourceSlice.class).resource(s).delete()))
        .start();
  }

  private DraSettings settings(Sharing sharing, int slices) {
    return new DraSettings(
        DRIVER,
        NODE,
        directory.resolve("plugins_registry"),
        directory.resolve("plugins"),
        directory.resolve("cdi"),
        directory.resolve("state"),
        Path.of("/usr/local/vnpu/lib/libvnpu.so"),
        List.of(),
        sharing,
        slices,
        DeviceOrder.BINPACK,
        LogLevel.INFO,
        Duration.ofMillis(100));
  }

  private SimulatedNpuDriver npus() {
    return new SimulatedNpuDriver(
        directory.resolve("inventory.yaml"), NODE, ChipCatalog.builtIn(), Clock.systemUTC());
  }

  private void inventory(boolean secondHealthy) throws IOException {
    inventory(
        "chips:\n  - {type: 910B3, numaNode: 0}\n  - {type: 910B3, numaNode: 1, healthy: "
            + secondHealthy
            + "}\n");
  }

  private void inventory(String yaml) throws IOException {
    Path temporary = directory.resolve("inventory.tmp");
    Files.writeString(temporary, yaml);
    Files.move(temporary, directory.resolve("inventory.yaml"), StandardCopyOption.REPLACE_EXISTING);
  }

  private List<ResourceSlice> slices() {
    return client.resources(ResourceSlice.class).list().getItems().stream()
        .sorted(Comparator.comparing(s -> s.getMetadata().getName()))
        .toList();
  }

  /** Creates an allocated claim; returns the UID the API server gave it. */
  private String claim(String name, String device, Map<String, Quantity> consumed) {
    return claim(name, "npu", device, consumed, null);
  }

  /** As {@link #claim(String, String, Map)}, for {@code request} and with a share ID. */
  private String claim(
      String name, String request, String device, Map<String, Quantity> consumed, String shareId) {
    ResourceClaim claim = new ResourceClaim();
    claim.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace("serving").build());
    ResourceClaim created =
        client.resources(ResourceClaim.class).inNamespace("serving").resource(claim).create();
    DeviceRequestAllocationResult result = new DeviceRequestAllocationResult();
    result.setRequest(request);
    result.setShareID(shareId);
    result.setDriver(DRIVER);
    result.setPool(NODE);
    result.setDevice(device);
    result.setConsumedCapacity(consumed);
    DeviceAllocationResult devices = new DeviceAllocationResult();
    devices.setResults(List.of(result));
    AllocationResult allocation = new AllocationResult();
    allocation.setDevices(devices);
    ResourceClaimStatus status = new ResourceClaimStatus();
    status.setAllocation(allocation);
    created.setStatus(status);
    client.resources(ResourceClaim.class).inNamespace("serving").resource(created).updateStatus();
    return created.getMetadata().getUid();
  }

  private NodePrepareResourceResponse prepare(String name, String uid) {
    return kubelet.prepare(DRIVER, List.of(ref(name, uid))).getClaimsMap().get(uid);
  }

  private static Claim ref(String name, String uid) {
    return Claim.newBuilder().setNamespace("serving").setName(name).setUid(uid).build();
  }

  private ShimConfig shimConfig(String uid, String device) throws IOException {
    return new ShimConfigFormat()
        .read(
            Files.readString(
                directory.resolve("state/pods").resolve(uid).resolve(device + ".conf")));
  }
}
