package org.vnpu.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.vnpu.api.LogLevel;
import org.vnpu.handouts.Handouts;
import picocli.CommandLine.Option;

/**
 * What the node agents that hand NPUs to containers share (the device plugin, the DRA driver):
 * where their files live on the host, the shim they mount, the driver paths, the shim's log level.
 */
final class HandoutOptions {

  @Option(
      names = "--state-dir",
      paramLabel = "DIR",
      defaultValue = "/var/run/vnpu",
      description =
          "Where per-pod shim configs, per-chip shared regions and the preload file live; must be"
              + " a host path (default: ${DEFAULT-VALUE}).")
  Path stateDirectory;

  @Option(
      names = "--shim-library",
      paramLabel = "FILE",
      defaultValue = "/usr/local/vnpu/lib/libvnpu.so",
      description =
          "libvnpu.so on the host, mounted into soft-mode containers (default: ${DEFAULT-VALUE}).")
  Path shimLibrary;

  @Option(
      names = "--driver-mount",
      paramLabel = "PATH",
      description =
          "Driver path to mount read-only into every NPU container, where it exists; repeat for"
              + " several. Default: the Ascend driver's lib64, version.info, ascend_install.info,"
              + " /usr/local/dcmi and npu-smi.")
  List<Path> driverMounts = new ArrayList<>(Handouts.DRIVER_MOUNTS);

  @Option(
      names = "--shim-log-level",
      paramLabel = "LEVEL",
      defaultValue = "info",
      converter = LogLevelConverter.class,
      description =
          "Log level of the shim in containers: error, warn, info, debug (default: ${DEFAULT-VALUE}).")
  LogLevel shimLogLevel;
}
