package org.vnpu.handouts;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.api.ShimContract;
import org.vnpu.api.SplitMode;
import org.vnpu.api.payload.ContainerAllocation;
import org.vnpu.api.payload.VnpuAssignment;

/**
 * Turns a container's vNPUs into what the kubelet passes to the container runtime.
 *
 * <p>Chips are handed out as device nodes ({@code DeviceSpec}s) and mounts, which the kubelet
 * applies and a pod cannot override. A pod's own {@code env} can: the kubelet lists the device
 * plugin's variables before the container's ({@code kubelet_pods.go GenerateRunContainerOptions})
 * and containerd keeps the last value of a name ({@code oci.WithEnv}), so a variable that chose a
 * chip would be the pod's to choose (issue 48). Ascend Docker Runtime reads {@code
 * ASCEND_VISIBLE_DEVICES} from the container's environment and mounts the chips it names; soft
 * shares and whole cards need none of it.
 *
 * <ul>
 *   <li>Every container: the control devices and the driver mounts that exist on this node.
 *   <li>Whole cards and soft shares: {@code /dev/davinciN} of each chip; no Ascend variable.
 *   <li>Soft shares: the shim, {@code /etc/ld.so.preload} and the container's config (read-only),
 *       the container's own books directory, and each chip's region file (read-write; not the
 *       chip's directory, so that a container cannot replace the file or plant others beside it).
 *   <li>Hard shares: only Ascend Docker Runtime can create a hardware vNPU, and it takes the
 *       template and the chip from the environment: {@code ASCEND_VNPU_SPECS=<template>}, {@code
 *       ASCEND_VISIBLE_DEVICES=<chip>} and {@code ASCEND_RUNTIME_OPTIONS=NODRV} (the driver is
 *       mounted here). The chart's admission policy refuses these names in a pod's own {@code env}
 *       (docs/security.md).
 * </ul>
 */
public final class Handouts {

  private static final Logger LOG = LoggerFactory.getLogger(Handouts.class);

  /** Ascend Docker Runtime: the chips it mounts and, with a template, creates a vNPU on. */
  public static final String ASCEND_VISIBLE_DEVICES = "ASCEND_VISIBLE_DEVICES";

  /** Ascend Docker Runtime: the hardware vNPU template it creates on the visible chip. */
  public static final String ASCEND_VNPU_SPECS = "ASCEND_VNPU_SPECS";

  /** Ascend Docker Runtime: {@code NODRV} leaves the driver's mounts to the device plugin. */
  public static final String ASCEND_RUNTIME_OPTIONS = "ASCEND_RUNTIME_OPTIONS";

  /** A chip's device node is this prefix and the chip's index. */
  public static final String CHIP_DEVICE_PREFIX = "/dev/davinci";

  /** Device nodes every Ascend container needs besides its chips. */
  public static final List<String> CONTROL_DEVICES =
      List.of("/dev/davinci_manager", "/dev/devmm_svm", "/dev/hisi_hdc");

  /** Driver files Ascend containers mount read-only, where the node has them. */
  public static final List<Path> DRIVER_MOUNTS =
      List.of(
          Path.of("/usr/local/Ascend/driver/lib64"),
          Path.of("/usr/local/Ascend/driver/version.info"),
          Path.of("/etc/ascend_install.info"),
          Path.of("/usr/local/dcmi"),
          Path.of("/usr/local/bin/npu-smi"));

  private final NodeFiles files;
  private final Path shimLibrary;
  private final List<Path> driverMounts;

  /**
   * @param shimLibrary libvnpu.so on the host
   * @param driverMounts driver paths to mount; those missing on this node are left out
   */
  public Handouts(NodeFiles files, Path shimLibrary, List<Path> driverMounts) {
    this.files = files;
    this.shimLibrary = shimLibrary;
    this.driverMounts = driverMounts.stream().filter(Files::exists).toList();
    List<Path> missing = driverMounts.stream().filter(path -> !Files.exists(path)).toList();
    if (!missing.isEmpty()) {
      LOG.warn(
          "driver paths {} do not exist in the device plugin's container and are not mounted into"
              + " NPU containers; where the node has them, mount them into this pod (chart values"
              + " devicePlugin.driverDir and hostDriverFiles)",
          missing);
    }
  }

  /**
   * What {@code container} receives.
   *
   * @param shim the container's shim files on the host; required for a soft share, else null
   */
  public Handout of(ContainerAllocation container, NodeFiles.ShimFiles shim) throws IOException {
    Map<String, String> environment = new LinkedHashMap<>();
    List<Handout.MountPoint> mounts = new ArrayList<>();
    List<Handout.DeviceNode> devices = new ArrayList<>();
    for (String control : CONTROL_DEVICES) {
      devices.add(new Handout.DeviceNode(control, control, "rw"));
    }
    for (Path driver : driverMounts) {
      mounts.add(new Handout.MountPoint(driver.toString(), driver.toString(), true));
    }
    for (VnpuAssignment vnpu : container.vnpus()) {
      if (vnpu.mode() == SplitMode.HARD && !vnpu.wholeCard()) {
        environment.put(ASCEND_VISIBLE_DEVICES, Integer.toString(vnpu.chipIndex()));
        environment.put(ASCEND_VNPU_SPECS, vnpu.template());
        environment.put(ASCEND_RUNTIME_OPTIONS, "NODRV");
        continue;
      }
      String chip = CHIP_DEVICE_PREFIX + vnpu.chipIndex();
      devices.add(new Handout.DeviceNode(chip, chip, "rw"));
      if (!vnpu.wholeCard()) {
        mounts.add(
            new Handout.MountPoint(
                ShimContract.chipRegion(vnpu.dieId()),
                files.chipRegion(vnpu.dieId()).toString(),
                false));
      }
    }
    if (shim != null) {
      mounts.add(
          new Handout.MountPoint(ShimContract.CONTAINER_LIBRARY, shimLibrary.toString(), true));
      mounts.add(
          new Handout.MountPoint(
              ShimContract.CONTAINER_PRELOAD, files.preloadFile().toString(), true));
      mounts.add(
          new Handout.MountPoint(ShimContract.CONTAINER_CONFIG, shim.config().toString(), true));
      mounts.add(
          new Handout.MountPoint(ShimContract.CONTAINER_BOOKS, shim.books().toString(), false));
    }
    return new Handout(environment, mounts, devices);
  }

  /**
   * The chips a hand-out gives, in the order the container numbers its devices: the chip device
   * nodes among {@code devicePaths}, or, for a hard template, the chip Ascend Docker Runtime
   * creates it on ({@code ASCEND_VISIBLE_DEVICES} of {@code environment}).
   */
  public static List<Integer> chips(List<String> devicePaths, Map<String, String> environment) {
    List<Integer> chips = new ArrayList<>();
    for (String path : devicePaths) {
      String index =
          path.startsWith(CHIP_DEVICE_PREFIX) ? path.substring(CHIP_DEVICE_PREFIX.length()) : "";
      if (!index.isEmpty() && index.length() < 10 && index.chars().allMatch(Character::isDigit)) {
        chips.add(Integer.parseInt(index));
      }
    }
    String templateChip = environment.getOrDefault(ASCEND_VISIBLE_DEVICES, "").strip();
    if (chips.isEmpty()
        && environment.containsKey(ASCEND_VNPU_SPECS)
        && !templateChip.isEmpty()
        && templateChip.length() < 10
        && templateChip.chars().allMatch(Character::isDigit)) {
      chips.add(Integer.parseInt(templateChip));
    }
    return chips;
  }

  /** {@link #chips(List, Map)} of a hand-out. */
  public static List<Integer> chips(Handout handout) {
    return chips(
        handout.devices().stream().map(Handout.DeviceNode::containerPath).toList(),
        handout.environment());
  }
}
