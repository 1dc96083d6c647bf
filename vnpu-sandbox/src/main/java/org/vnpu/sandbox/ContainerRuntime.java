package org.vnpu.sandbox;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import java.util.stream.Collectors;
import org.vnpu.api.ShimContract;
import org.vnpu.api.codec.ShimConfigFormat;
import org.vnpu.api.payload.RegisteredChip;
import org.vnpu.api.payload.ShimConfig;
import org.vnpu.api.payload.ShimDevice;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.core.chip.VnpuTemplate;
import org.vnpu.handouts.Handouts;
import org.vnpu.kubelet.deviceplugin.v1beta1.ContainerAllocateResponse;
import org.vnpu.kubelet.deviceplugin.v1beta1.DeviceSpec;
import org.vnpu.kubelet.deviceplugin.v1beta1.Mount;

/**
 * Starts a container as a process running the workload program, with what the device plugin's
 * Allocate answer gives it. There is no mount namespace (ADR 0007): the answer's mounts are
 * resolved to their host paths in the environment, in the shim config (a resolved copy in the
 * container's directory) and in the preload list, which becomes {@code LD_PRELOAD}. The fake
 * runtime gets the node's chip directory, the chips the answer's device nodes name (as a real
 * container sees only the {@code /dev/davinciN} it was given), and each device's memory: the
 * chip's, or the hardware template's when Ascend Docker Runtime would create one ({@code
 * ASCEND_VNPU_SPECS}).
 */
final class ContainerRuntime {

  private final Path workload;
  private final Path fakeChips;
  private final IntFunction<RegisteredChip> chips;
  private final ChipCatalog catalog;
  private final int niceness;
  private final ShimConfigFormat configs = new ShimConfigFormat();

  /**
   * @param workload the container program
   * @param fakeChips the fake runtime's chip directory of this node
   * @param chips the node's chip at an index
   * @param niceness the niceness the containers run at ({@link SandboxOptions#workloadNiceness})
   */
  ContainerRuntime(
      Path workload,
      Path fakeChips,
      IntFunction<RegisteredChip> chips,
      ChipCatalog catalog,
      int niceness) {
    this.workload = workload;
    this.fakeChips = fakeChips;
    this.chips = chips;
    this.catalog = catalog;
    this.niceness = niceness;
  }

  /**
   * Starts the container; its output goes to {@code directory/log}.
   *
   * @param specEnvironment the container's {@code env} from the pod spec
   */
  Process start(
      ContainerAllocateResponse handout, Map<String, String> specEnvironment, Path directory)
      throws IOException {
    Files.createDirectories(directory);
    Map<String, String> mounts = new LinkedHashMap<>();
    for (Mount mount : handout.getMountsList()) {
      mounts.put(mount.getContainerPath(), mount.getHostPath());
    }
    // The kubelet lists the device plugin's variables before the container's own
    // (pkg/kubelet/kubelet_pods.go GenerateRunContainerOptions: opts.Envs, then
    // makeEnvironmentVariables), and containerd keeps the last value of a name (oci.WithEnv):
    // the pod's env wins.
    Map<String, String> environment = new LinkedHashMap<>();
    handout.getEnvsMap().forEach((key, value) -> environment.put(key, resolve(value, mounts)));
    environment.putAll(specEnvironment);
    List<Integer> visible =
        Handouts.chips(
            handout.getDevicesList().stream().map(DeviceSpec::getContainerPath).toList(),
            environment);
    // In a container the shim reads its config at the fixed path; with no mount namespace, the
    // sandbox points it at a resolved copy through the variable the shim honours only here.
    String config = mounts.get(ShimContract.CONTAINER_CONFIG);
    if (config != null) {
      environment.put(
          ShimContract.CONFIG_ENV, resolvedConfig(Path.of(config), mounts, directory).toString());
    }
    String preload = mounts.get(ShimContract.CONTAINER_PRELOAD);
    if (preload != null) {
      environment.put("LD_PRELOAD", preloadList(Path.of(preload), mounts));
    }
    environment.put("VNPU_FAKE_RT_DIR", fakeChips.toString());
    environment.put("WORKLOAD_NICE", Integer.toString(niceness));
    environment.put(
        "VNPU_FAKE_RT_VISIBLE",
        visible.stream().map(String::valueOf).collect(Collectors.joining(",")));
    if (!visible.isEmpty()) {
      environment.put(
          "VNPU_FAKE_RT_MEMORY_MIB",
          Long.toString(
              deviceMemoryMiB(visible.get(0), environment.get(Handouts.ASCEND_VNPU_SPECS))));
    }

    ProcessBuilder builder = new ProcessBuilder(workload.toString());
    builder.environment().clear();
    builder.environment().putAll(environment);
    builder.directory(directory.toFile());
    builder.redirectErrorStream(true);
    builder.redirectOutput(directory.resolve("log").toFile());
    return builder.start();
  }

  private Path resolvedConfig(Path hostConfig, Map<String, String> mounts, Path directory)
      throws IOException {
    ShimConfig written = configs.read(Files.readString(hostConfig));
    List<ShimDevice> devices =
        written.devices().stream()
            .map(
                device ->
                    new ShimDevice(
                        device.dieId(),
                        device.memoryBytes(),
                        device.cores(),
                        device.policy(),
                        resolve(device.region(), mounts)))
            .toList();
    Path resolved = directory.resolve(ShimConfigFormat.FILE_NAME);
    Files.writeString(
        resolved,
        configs.write(
            new ShimConfig(
                written.podUid(),
                written.podNamespace(),
                written.podName(),
                written.container(),
                resolve(written.booksDirectory(), mounts),
                written.logLevel(),
                written.offline(),
                devices)));
    return resolved;
  }

  private static String preloadList(Path hostPreload, Map<String, String> mounts)
      throws IOException {
    List<String> libraries = new ArrayList<>();
    for (String line : Files.readAllLines(hostPreload)) {
      String library = line.strip();
      if (!library.isEmpty() && !library.startsWith("#")) {
        libraries.add(resolve(library, mounts));
      }
    }
    return String.join(":", libraries);
  }

  private long deviceMemoryMiB(int chipIndex, String template) {
    RegisteredChip chip = chips.apply(chipIndex);
    if (template == null) {
      return chip.memoryMiB();
    }
    return catalog
        .find(chip.chipType())
        .flatMap(
            model ->
                model.templates().stream()
                    .filter(candidate -> candidate.name().equals(template))
                    .findFirst())
        .map(VnpuTemplate::memoryMiB)
        .orElse(chip.memoryMiB());
  }

  /** The host path of a container path under one of the mounts; other values unchanged. */
  static String resolve(String value, Map<String, String> mounts) {
    for (Map.Entry<String, String> mount : mounts.entrySet()) {
      String inside = mount.getKey();
      if (value.equals(inside)) {
        return mount.getValue();
      }
      if (value.startsWith(inside + "/")) {
        return mount.getValue() + value.substring(inside.length());
      }
    }
    return value;
  }
}
