package org.vnpu.deviceplugin;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vnpu.api.LabelKeys;
import org.vnpu.api.signing.SigningKey;
import org.vnpu.api.signing.VerifyingKey;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.deviceplugin.NodeDoctor.Check;
import org.vnpu.deviceplugin.NodeDoctor.Outcome;
import org.vnpu.driver.DriverException;
import org.vnpu.driver.NpuDriver;
import org.vnpu.driver.SimulatedNpuDriver;

/** Each check of a node passes on a node set up as docs/install.md says and fails with its fix. */
@EnableKubernetesMockClient(crud = true)
class NodeDoctorTest {

  private static final Path SHIM = Path.of(System.getProperty("vnpu.libvnpu.build"), "libvnpu.so");

  KubernetesClient client;

  @TempDir Path directory;

  private NodeDoctor.Setup setup;
  private Path inventory;
  private ServerSocketChannel kubelet;

  @BeforeEach
  void aNodeSetUpAsTheInstallGuideSays() throws IOException {
    label(Map.of(LabelKeys.VNPU, "ready"));
    Path plugins = Files.createDirectories(directory.resolve("device-plugins"));
    kubelet = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    kubelet.bind(UnixDomainSocketAddress.of(plugins.resolve("kubelet.sock")));
    Path runtime = Files.createDirectories(directory.resolve("Ascend-Docker-Runtime"));
    Files.writeString(runtime.resolve("ascend-docker-runtime"), "#!/bin/sh\n");
    Files.setPosixFilePermissions(
        runtime.resolve("ascend-docker-runtime"), PosixFilePermissions.fromString("rwxr-xr-x"));
    Path keys = Files.createDirectories(directory.resolve("keys"));
    VerifyingKey key = SigningKey.generate().verifying();
    Files.writeString(keys.resolve(key.id()), key.encoded());
    inventory = directory.resolve("inventory.yaml");
    Files.writeString(inventory, "chips:\n  - {type: 910B3, count: 2}\n");
    setup =
        new NodeDoctor.Setup("a2", null, plugins, directory.resolve("state"), SHIM, keys, runtime);
  }

  @AfterEach
  void closeKubelet() throws IOException {
    kubelet.close();
  }

  @Test
  void everyCheckPassesOnANodeSetUpAsTheGuideSays() {
    List<Check> checks = NodeDoctor.examine(setup, simulated(), client);

    assertThat(checks)
        .extracting(Check::name)
        .containsExactly(
            "labels",
            "driver",
            "device-share",
            "runtime-hook",
            "kubelet",
            "shim",
            "state-dir",
            "signing-keys");
    assertThat(checks)
        .allSatisfy(c -> assertThat(c.outcome()).as(c.toString()).isEqualTo(Outcome.PASS));
    assertThat(check(checks, "driver").detail())
        .isEqualTo("simulated: 2 chip(s) (2× 910B3), all healthy");
  }

  @Test
  void aMissingLabelNamesTheCommandThatSetsIt() {
    label(Map.of());

    Check labels = check(NodeDoctor.examine(setup, simulated(), client), "labels");

    assertThat(labels.outcome()).isEqualTo(Outcome.FAIL);
    assertThat(labels.fix()).isEqualTo("kubectl label node a2 huawei.com/vnpu=ready");
  }

  @Test
  void deviceShareOffOnASoftNodeFailsAndOnAHardNodeIsNotNeeded() throws IOException {
    Files.writeString(
        inventory, "chips:\n  - {type: 910B3}\n  - {type: 910B3, deviceShare: false}\n");

    Check soft = check(NodeDoctor.examine(setup, simulated(), client), "device-share");
    label(Map.of(LabelKeys.VNPU, "ready", LabelKeys.SPLIT_MODE, "hard"));
    Check hard = check(NodeDoctor.examine(setup, simulated(), client), "device-share");

    assertThat(soft.outcome()).isEqualTo(Outcome.FAIL);
    assertThat(soft.detail()).startsWith("off on chip(s) [1]");
    assertThat(soft.fix()).startsWith("npu-smi set -t device-share -i CARD -d 1");
    assertThat(hard.outcome()).isEqualTo(Outcome.PASS);
  }

  @Test
  void aDriverThatDoesNotAnswerFailsWithTheWayToNameIt() {
    Supplier<NpuDriver> missing =
        () -> {
          throw new DriverException("no libdcmi.so and no npu-smi found");
        };

    List<Check> checks = NodeDoctor.examine(setup, missing, client);

    assertThat(check(checks, "driver").outcome()).isEqualTo(Outcome.FAIL);
    assertThat(check(checks, "driver").detail()).isEqualTo("no libdcmi.so and no npu-smi found");
    assertThat(check(checks, "driver").fix()).contains("--dcmi-library");
  }

  @Test
  void aShimTheLoaderRefusesFailsWithItsMessage() throws IOException {
    Path broken = Files.writeString(directory.resolve("libvnpu.so"), "not an ELF file");

    Check shim = check(NodeDoctor.examine(withShim(broken), simulated(), client), "shim");

    assertThat(shim.outcome()).isEqualTo(Outcome.FAIL);
    assertThat(shim.detail()).contains("cannot be preloaded");
  }

  @Test
  void aStateDirectoryOthersCanWriteFails() throws IOException {
    Path state = Files.createDirectories(setup.stateDirectory().resolve("pods"));
    Files.setPosixFilePermissions(state, PosixFilePermissions.fromString("rwxrwxrwx"));

    Check check = check(NodeDoctor.examine(setup, simulated(), client), "state-dir");

    assertThat(check.outcome()).isEqualTo(Outcome.FAIL);
    assertThat(check.detail()).isEqualTo(state + " is writable by group or others");
    assertThat(check.fix()).contains("chmod go-w");
  }

  @Test
  void noKubeletNoRuntimeAndNoKeysFailEachWithItsFix() throws IOException {
    kubelet.close();
    Files.delete(setup.kubeletDirectory().resolve("kubelet.sock"));
    Path empty = Files.createDirectories(directory.resolve("empty"));
    NodeDoctor.Setup broken =
        new NodeDoctor.Setup(
            "a2", null, setup.kubeletDirectory(), setup.stateDirectory(), SHIM, empty, empty);

    List<Check> checks = NodeDoctor.examine(broken, simulated(), client);

    assertThat(check(checks, "kubelet").detail()).startsWith("no kubelet.sock in");
    assertThat(check(checks, "runtime-hook").fix()).contains("Ascend Docker Runtime");
    assertThat(check(checks, "signing-keys").detail()).startsWith("no valid verifying key");
    assertThat(checks)
        .filteredOn(c -> c.outcome() == Outcome.FAIL)
        .extracting(Check::name)
        .containsExactly("runtime-hook", "kubelet", "signing-keys");
  }

  private NodeDoctor.Setup withShim(Path shim) {
    return new NodeDoctor.Setup(
        setup.node(),
        setup.splitMode(),
        setup.kubeletDirectory(),
        setup.stateDirectory(),
        shim,
        setup.verifyingKeys(),
        setup.ascendRuntime());
  }

  private Supplier<NpuDriver> simulated() {
    return () -> new SimulatedNpuDriver(inventory, "a2", ChipCatalog.builtIn(), Clock.systemUTC());
  }

  private void label(Map<String, String> labels) {
    client
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName("a2")
                .withLabels(labels)
                .endMetadata()
                .build())
        .createOr(existing -> existing.update());
  }

  private static Check check(List<Check> checks, String name) {
    return checks.stream().filter(c -> c.name().equals(name)).findFirst().orElseThrow();
  }
}
