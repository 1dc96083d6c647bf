package org.vnpu.handouts;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.api.ShimContract;
import org.vnpu.api.SplitMode;
import org.vnpu.api.payload.ContainerAllocation;
import org.vnpu.api.payload.VnpuAssignment;

/**
 * Turns a container's vNPUs into what the kubelet passes to the container runtime.
 *
 * <ul>
 *   <li>Every container: the control devices, the driver mounts that exist on this node, {@code
 *       ASCEND_VISIBLE_DEVICES} with the chip indexes, and {@code ASCEND_RUNTIME_OPTIONS=NODRV} so
 *       that Ascend Docker Runtime, where installed, does not mount the driver a second time.
 *   <li>Whole cards and soft shares: {@code /dev/davinciN} of each chip.
 *   <li>Soft shares: the shim, {@code /etc/ld.so.preload} and the container's config (read-only),
 *       the container's own books directory, and each chip's region file (read-write; not the
 *       chip's directory, so that a container cannot replace the file or plant others beside it).
 *   <li>Hard shares: no {@code /dev/davinciN}; {@code ASCEND_VNPU_SPECS=<template>} makes Ascend
 *       Docker Runtime create the vNPU on the chip and mount it.
 * </ul>
 */
public final class Handouts {

  private static final Logger LOG = LoggerFactory.getLogger(Handouts.class);

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
    environment.put(
        "ASCEND_VISIBLE_DEVICES",
        container.vnpus().stream()
            .map(vnpu -> Integer.toString(vnpu.chipIndex()))
            .collect(Collectors.joining(",")));
    environment.put("ASCEND_RUNTIME_OPTIONS", "NODRV");
    for (String control : CONTROL_DEVICES) {
      devices.add(new Handout.DeviceNode(control, control, "rw"));
    }
    for (Path driver : driverMounts) {
      mounts.add(new Handout.MountPoint(driver.toString(), driver.toString(), true));
    }
    for (VnpuAssignment vnpu : container.vnpus()) {
      if (vnpu.mode() == SplitMode.HARD && !vnpu.wholeCard()) {
        environment.put("ASCEND_VNPU_SPECS", vnpu.template());
        continue;
      }
      String chip = "/dev/davinci" + vnpu.chipIndex();
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
}
