package org.vnpu.cluster.node;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.sandbox.NativeFiles;

/**
 * The Ascend hardware a real node pretends to have, as far as the node's software can tell: the
 * driver's directory with the fake libdcmi.so and the chips it reports, and the device nodes an
 * Ascend container gets ({@code /dev/davinciN} and the three control devices). The device nodes are
 * made as this host's {@code /dev/null} (character device 1:3), only where none exists, and removed
 * again on close; the kubelet, runc and the device plugin handle them as the real ones.
 */
public final class NodeHardware implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(NodeHardware.class);

  /** A 910B3: 20 AI Cores, 64 GiB, device sharing on (soft mode needs it). */
  private static final String CHIP =
      "device card=%1$d device=0 logic=%1$d type=npu name=910B3 die=0A1B2C3D-0-0-%2$d-%3$d"
          + " aicore=20 memory_mb=65536 memory_used_mb=0 health=0 share=1\n"
          + "device card=%1$d device=1 type=mcu\n";

  private final Path driver;
  private final Path fakeChips;
  private final List<Path> madeDevices = new ArrayList<>();

  private NodeHardware(Path driver, Path fakeChips) {
    this.driver = driver;
    this.fakeChips = fakeChips;
  }

  /** The driver's directory, {@code devicePlugin.driverDir} of the chart. */
  public Path driver() {
    return driver;
  }

  /** The driver's install record, which Ascend keeps in {@code /etc/ascend_install.info}. */
  public Path installInfo() {
    return driver.getParent().resolve("ascend_install.info");
  }

  /** The fake runtime's chip files, which every container on a chip must share. */
  public Path fakeChips() {
    return fakeChips;
  }

  /**
   * Installs the driver's files under {@code directory} and makes the device nodes of {@code chips}
   * chips.
   *
   * @param node the node's number, part of each chip's die ID so that nodes' chips differ
   */
  public static NodeHardware install(Path directory, int node, int chips, NativeFiles natives)
      throws IOException, InterruptedException {
    NodeHardware hardware =
        new NodeHardware(directory.resolve("Ascend/driver"), directory.resolve("fake-chips"));
    Path lib64 = hardware.driver.resolve("lib64");
    Files.createDirectories(lib64);
    Files.createDirectories(hardware.fakeChips);
    Files.copy(
        natives.fake("libdcmi.so"),
        lib64.resolve("libdcmi.so"),
        StandardCopyOption.REPLACE_EXISTING);
    StringBuilder config = new StringBuilder("# the chips of this real node (vnpu real-node)\n");
    for (int chip = 0; chip < chips; chip++) {
      config.append(CHIP.formatted(chip, node, chip + 1));
    }
    Files.writeString(lib64.resolve("fake-dcmi.conf"), config);
    Files.writeString(hardware.driver.resolve("version.info"), "Version=24.1.rc2 (fake)\n");
    Files.writeString(
        hardware.installInfo(), "Driver_Install_Path_Param=" + hardware.driver.getParent() + "\n");
    List<String> devices = new ArrayList<>(List.of("davinci_manager", "devmm_svm", "hisi_hdc"));
    for (int chip = 0; chip < chips; chip++) {
      devices.add("davinci" + chip);
    }
    for (String device : devices) {
      hardware.makeDevice(Path.of("/dev", device));
    }
    return hardware;
  }

  private void makeDevice(Path device) throws IOException, InterruptedException {
    if (Files.exists(device)) {
      LOG.info("{} exists on this host; left as it is", device);
      return;
    }
    HostCommands.Result mknod =
        HostCommands.attempt(List.of("mknod", "-m", "666", device.toString(), "c", "1", "3"));
    if (mknod.exit() != 0) {
      throw new IOException(
          "cannot make the fake device node " + device + " (needs root): " + mknod.errors());
    }
    madeDevices.add(device);
  }

  /** Removes the device nodes it made. */
  @Override
  public void close() {
    for (Path device : madeDevices) {
      try {
        Files.deleteIfExists(device);
      } catch (IOException e) {
        LOG.warn("cannot remove the fake device node {}: {}", device, e.toString());
      }
    }
    madeDevices.clear();
  }
}
