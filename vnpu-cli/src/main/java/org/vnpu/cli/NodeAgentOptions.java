package org.vnpu.cli;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.driver.DriverException;
import org.vnpu.driver.Drivers;
import org.vnpu.driver.NpuDriver;
import picocli.CommandLine.Option;

/**
 * The options every per-node agent shares (the device plugin, the DRA driver, the exporter): which
 * node it serves how it reads the node's NPUs and how often; and how such an agent runs until it is
 * stopped.
 */
final class NodeAgentOptions {

  @Option(
      names = "--node-name",
      paramLabel = "NAME",
      defaultValue = "${env:NODE_NAME}",
      description = "This node's name in the API server (default: $NODE_NAME).")
  String node;

  @Option(
      names = "--driver",
      paramLabel = "KIND",
      converter = DriverKindConverter.class,
      description =
          "How to read the NPUs: dcmi, npu-smi or simulated. Default: simulated when --inventory"
              + " is given, else dcmi when libdcmi.so is installed, else npu-smi when installed.")
  Drivers.Kind driver;

  @Option(
      names = "--inventory",
      paramLabel = "FILE",
      description = "YAML inventory of the simulated driver (format: docs/node-agent.md).")
  Path inventory;

  @Option(
      names = "--dcmi-library",
      paramLabel = "FILE",
      description =
          "libdcmi.so to load (default: the first of /usr/local/Ascend/driver/lib64/driver,"
              + " /usr/local/dcmi, /usr/local/Ascend/driver/lib64/common).")
  Path dcmiLibrary;

  @Option(
      names = "--npu-smi",
      paramLabel = "FILE",
      description = "npu-smi executable (default: from $PATH, /usr/local/bin or /usr/local/sbin).")
  Path npuSmi;

  @Option(
      names = "--poll-interval",
      paramLabel = "DURATION",
      defaultValue = "5s",
      converter = DurationConverter.class,
      description =
          "How often the driver is asked for chips, health and usage (default: ${DEFAULT-VALUE}).")
  Duration pollInterval;

  /** The node's name; an input error when missing. */
  String node() {
    if (node == null || node.isBlank()) {
      throw new InputException("--node-name is required (or set $NODE_NAME)");
    }
    return node;
  }

  /** The driver the options ask for; an input error naming what is missing. */
  NpuDriver openDriver(ChipCatalog catalog) {
    try {
      return Drivers.open(
          driver, dcmiLibrary, npuSmi, inventory, node(), catalog, Clock.systemUTC());
    } catch (DriverException e) {
      throw new InputException(e.getMessage());
    }
  }

  /** Blocks until the JVM is asked to stop, then closes {@code parts} in order. */
  static void runUntilStopped(AutoCloseable... parts) throws InterruptedException {
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  for (AutoCloseable part : parts) {
                    try {
                      part.close();
                    } catch (Exception e) {
                      System.err.println("vnpu: while stopping: " + e);
                    }
                  }
                  stopped.countDown();
                },
                "vnpu-shutdown"));
    stopped.await();
  }
}
