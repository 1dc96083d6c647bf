package org.vnpu.driver;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.vnpu.core.chip.ChipCatalog;

/**
 * Opens the driver a node asks for, or finds one: DCMI where libdcmi.so is installed, else npu-smi
 * where it is installed, else an error that says how to run without NPUs.
 */
public final class Drivers {

  /** The drivers, as {@code --driver} spells them. */
  public enum Kind {
    DCMI,
    NPU_SMI,
    SIMULATED
  }

  /** Where npu-smi is installed on Ascend hosts, besides the PATH. */
  public static final List<Path> NPU_SMI_LOCATIONS =
      List.of(Path.of("/usr/local/bin/npu-smi"), Path.of("/usr/local/sbin/npu-smi"));

  private static final long NPU_SMI_TIMEOUT_SECONDS = 10;

  private Drivers() {}

  /**
   * The driver of {@code kind}, or the detected one when {@code kind} is null.
   *
   * @param dcmiLibrary libdcmi.so; null to search the usual places
   * @param npuSmi the npu-smi executable; null to search the usual places
   * @param inventory the simulated driver's file; required for it
   * @throws DriverException naming what is missing
   */
  public static NpuDriver open(
      Kind kind,
      Path dcmiLibrary,
      Path npuSmi,
      Path inventory,
      String node,
      ChipCatalog catalog,
      Clock clock) {
    if (kind == Kind.SIMULATED || (kind == null && inventory != null)) {
      if (inventory == null) {
        throw new DriverException("--driver simulated needs --inventory FILE");
      }
      return new SimulatedNpuDriver(inventory, node, catalog, clock);
    }
    Optional<Path> library =
        dcmiLibrary != null ? Optional.of(dcmiLibrary) : DcmiNpuDriver.installedLibrary();
    if (kind == Kind.DCMI || (kind == null && library.isPresent())) {
      return DcmiNpuDriver.load(
          library.orElseThrow(
              () ->
                  new DriverException(
                      "libdcmi.so is not at any of "
                          + DcmiNpuDriver.candidates(System.getenv("LD_LIBRARY_PATH"))
                          + "; give its path with --dcmi-library")),
          catalog);
    }
    Optional<Path> tool = npuSmi != null ? Optional.of(npuSmi) : installedNpuSmi();
    if (kind == Kind.NPU_SMI || tool.isPresent()) {
      return new NpuSmiNpuDriver(
          tool.map(Path::toString).orElse("npu-smi"),
          CommandRunner.processes(NPU_SMI_TIMEOUT_SECONDS),
          catalog);
    }
    throw new DriverException(
        "found no NPU driver: libdcmi.so is not at any of "
            + DcmiNpuDriver.candidates(System.getenv("LD_LIBRARY_PATH"))
            + " and npu-smi is neither on the PATH nor at "
            + NPU_SMI_LOCATIONS
            + "; on a machine without NPUs use --driver simulated --inventory FILE");
  }

  private static Optional<Path> installedNpuSmi() {
    String path = System.getenv().getOrDefault("PATH", "");
    return Stream.concat(
            Arrays.stream(path.split(":"))
                .filter(entry -> !entry.isEmpty())
                .map(entry -> Path.of(entry, "npu-smi")),
            NPU_SMI_LOCATIONS.stream())
        .filter(Files::isExecutable)
        .findFirst();
  }
}
