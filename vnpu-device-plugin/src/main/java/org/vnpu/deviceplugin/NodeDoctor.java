package org.vnpu.deviceplugin;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.api.LabelKeys;
import org.vnpu.api.SplitMode;
import org.vnpu.api.WireValue;
import org.vnpu.api.payload.RegisteredChip;
import org.vnpu.driver.NpuDriver;
import org.vnpu.kube.VerifyingKeys;

/**
 * Checks that a node is set up for vNPU (docs/install.md, "Prerequisites"): each check passes, or
 * fails with what to do. {@code vnpu doctor} prints them; the device plugin logs them at start.
 * Nothing is changed.
 */
public final class NodeDoctor {

  /** How a check came out; a warning is something the doctor cannot tell. */
  public enum Outcome {
    PASS,
    WARN,
    FAIL
  }

  /**
   * One check.
   *
   * @param name what was checked, e.g. {@code driver}
   * @param outcome how it came out
   * @param detail what was found
   * @param fix what to do; empty when it passed
   */
  public record Check(String name, Outcome outcome, String detail, String fix) {

    static Check pass(String name, String detail) {
      return new Check(name, Outcome.PASS, detail, "");
    }
  }

  /**
   * Where the node's parts are.
   *
   * @param node the node's name
   * @param splitMode the mode the device plugin is told; null to take the node's label's
   * @param kubeletDirectory the kubelet's device-plugin directory
   * @param stateDirectory the device plugin's state directory
   * @param shimLibrary the shim on the host
   * @param verifyingKeys the mounted verifying-keys ConfigMap
   * @param ascendRuntime Ascend Docker Runtime's installation directory
   */
  public record Setup(
      String node,
      SplitMode splitMode,
      Path kubeletDirectory,
      Path stateDirectory,
      Path shimLibrary,
      Path verifyingKeys,
      Path ascendRuntime) {}

  /** Ascend Docker Runtime's default installation directory. */
  public static final Path DEFAULT_ASCEND_RUNTIME =
      Path.of("/usr/local/Ascend/Ascend-Docker-Runtime");

  private static final List<String> RUNTIME_BINARIES =
      List.of("ascend-docker-runtime", "ascend-docker-hook");
  private static final int PRELOAD_SECONDS = 10;

  private static final Logger LOG = LoggerFactory.getLogger(NodeDoctor.class);

  private NodeDoctor() {}

  /**
   * Every check, in the order a node is set up.
   *
   * @param driver opens the node's driver; what it throws fails the driver check
   * @param client the API server, or null when there is none to ask (the labels are not checked)
   */
  public static List<Check> examine(
      Setup setup, Supplier<NpuDriver> driver, KubernetesClient client) {
    List<Check> checks = new ArrayList<>();
    Optional<Node> node = Optional.empty();
    if (client == null) {
      checks.add(
          new Check(
              "labels",
              Outcome.WARN,
              "not checked: no API server",
              "give a kubeconfig (--kubeconfig) or run in the device plugin's pod"));
    } else {
      node = labels(setup, client, checks);
    }
    SplitMode mode =
        setup.splitMode() != null
            ? setup.splitMode()
            : node.map(n -> n.getMetadata().getLabels())
                .map(labels -> labels.get(LabelKeys.SPLIT_MODE))
                .flatMap(label -> WireValue.parse(SplitMode.class, label))
                .orElse(SplitMode.SOFT);
    drivers(driver, mode, checks);
    checks.add(runtime(setup.ascendRuntime()));
    checks.add(kubelet(setup.kubeletDirectory()));
    checks.add(shim(setup.shimLibrary()));
    checks.add(state(setup.stateDirectory()));
    checks.add(keys(setup.verifyingKeys()));
    return checks;
  }

  /** Logs each check: passes as information, the others as warnings with their fix. */
  public static void log(List<Check> checks) {
    for (Check check : checks) {
      if (check.outcome() == Outcome.PASS) {
        LOG.info("node check {}: pass: {}", check.name(), check.detail());
      } else {
        LOG.warn(
            "node check {}: {}: {}; fix: {}",
            check.name(),
            check.outcome().name().toLowerCase(Locale.ROOT),
            check.detail(),
            check.fix());
      }
    }
  }

  private static Optional<Node> labels(Setup setup, KubernetesClient client, List<Check> checks) {
    Node node;
    try {
      node = client.nodes().withName(setup.node()).get();
    } catch (RuntimeException e) {
      checks.add(
          new Check(
              "labels",
              Outcome.FAIL,
              "cannot read node " + setup.node() + ": " + e.getMessage(),
              "check the kubeconfig and that the API server answers (kubectl get node "
                  + setup.node()
                  + ")"));
      return Optional.empty();
    }
    if (node == null) {
      checks.add(
          new Check(
              "labels",
              Outcome.FAIL,
              "the API server has no node " + setup.node(),
              "give the node's name as the API server knows it (--node-name, $NODE_NAME)"));
      return Optional.empty();
    }
    Map<String, String> labels =
        node.getMetadata().getLabels() == null ? Map.of() : node.getMetadata().getLabels();
    String ready = labels.get(LabelKeys.VNPU);
    String mode = labels.get(LabelKeys.SPLIT_MODE);
    if (!LabelKeys.VNPU_READY_VALUE.equals(ready)) {
      checks.add(
          new Check(
              "labels",
              Outcome.FAIL,
              LabelKeys.VNPU
                  + (ready == null ? " is not set" : "=" + ready)
                  + ": the chart's DaemonSets do not run on the node",
              "kubectl label node "
                  + setup.node()
                  + " "
                  + LabelKeys.VNPU
                  + "="
                  + LabelKeys.VNPU_READY_VALUE));
    } else if (mode != null && WireValue.parse(SplitMode.class, mode).isEmpty()) {
      checks.add(
          new Check(
              "labels",
              Outcome.FAIL,
              LabelKeys.SPLIT_MODE
                  + "="
                  + mode
                  + " is not one of "
                  + WireValue.choices(SplitMode.class)
                  + ": the device plugin publishes no inventory",
              "kubectl label node "
                  + setup.node()
                  + " --overwrite "
                  + LabelKeys.SPLIT_MODE
                  + "=soft (or hard)"));
    } else {
      checks.add(
          Check.pass(
              "labels",
              LabelKeys.VNPU
                  + "="
                  + ready
                  + ", split mode "
                  + (mode == null ? "soft (no " + LabelKeys.SPLIT_MODE + " label)" : mode)));
    }
    return Optional.of(node);
  }

  private static void drivers(Supplier<NpuDriver> open, SplitMode mode, List<Check> checks) {
    NpuDriver driver;
    List<RegisteredChip> chips;
    try {
      driver = open.get();
      chips = driver.chips();
    } catch (RuntimeException e) {
      checks.add(
          new Check(
              "driver",
              Outcome.FAIL,
              e.getMessage(),
              "install the Ascend driver so that npu-smi info answers, or name it with"
                  + " --dcmi-library or --npu-smi"));
      checks.add(
          new Check(
              "device-share", Outcome.WARN, "not checked: no driver", "fix the driver first"));
      return;
    }
    List<Integer> unhealthy =
        chips.stream().filter(c -> !c.healthy()).map(RegisteredChip::index).toList();
    String found =
        driver.name()
            + ": "
            + chips.size()
            + " chip(s) ("
            + chips.stream()
                .collect(Collectors.groupingBy(RegisteredChip::chipType, Collectors.counting()))
                .entrySet()
                .stream()
                .map(e -> e.getValue() + "× " + e.getKey())
                .sorted()
                .collect(Collectors.joining(", "))
            + ")";
    checks.add(
        unhealthy.isEmpty()
            ? Check.pass("driver", found + ", all healthy")
            : new Check(
                "driver",
                Outcome.WARN,
                found + "; unhealthy: chip(s) " + unhealthy,
                "npu-smi info shows why; the scheduler places nothing on unhealthy chips"));
    checks.add(deviceShare(driver, chips, mode));
  }

  private static Check deviceShare(NpuDriver driver, List<RegisteredChip> chips, SplitMode mode) {
    if (mode == SplitMode.HARD) {
      return Check.pass("device-share", "not needed: the node is in hard mode");
    }
    List<Integer> off = new ArrayList<>();
    List<Integer> unknown = new ArrayList<>();
    try {
      for (RegisteredChip chip : chips) {
        Optional<Boolean> share = driver.deviceShare(chip);
        if (share.isEmpty()) {
          unknown.add(chip.index());
        } else if (!share.get()) {
          off.add(chip.index());
        }
      }
    } catch (RuntimeException e) {
      return new Check(
          "device-share",
          Outcome.WARN,
          "cannot read it: " + e.getMessage(),
          "check with npu-smi info -t device-share -i CARD");
    }
    if (!off.isEmpty()) {
      return new Check(
          "device-share",
          Outcome.FAIL,
          "off on chip(s) " + off + ": containers cannot share them in soft mode",
          "npu-smi set -t device-share -i CARD -d 1 for each (answer Y; it resets on reboot)");
    }
    if (!unknown.isEmpty()) {
      return new Check(
          "device-share",
          Outcome.WARN,
          "the " + driver.name() + " driver cannot tell for chip(s) " + unknown,
          "check with npu-smi info -t device-share -i CARD; enable it with npu-smi set -t"
              + " device-share -i CARD -d 1");
    }
    return Check.pass("device-share", "on for every chip");
  }

  private static Check runtime(Path directory) {
    for (String binary : RUNTIME_BINARIES) {
      if (Files.isExecutable(directory.resolve(binary))) {
        return Check.pass("runtime-hook", "Ascend Docker Runtime at " + directory.resolve(binary));
      }
    }
    return new Check(
        "runtime-hook",
        Outcome.FAIL,
        "no " + String.join(" or ", RUNTIME_BINARIES) + " in " + directory,
        "install Ascend Docker Runtime 7.2.RC1 or newer as the container runtime's NPU hook"
            + " (docs/install.md), or name its directory with --ascend-runtime");
  }

  private static Check kubelet(Path directory) {
    Path socket = directory.resolve("kubelet.sock");
    if (!Files.isDirectory(directory)) {
      return new Check(
          "kubelet",
          Outcome.FAIL,
          directory + " is not a directory",
          "mount the kubelet's device-plugin directory (hostPath"
              + " /var/lib/kubelet/device-plugins) or name it with --kubelet-dir");
    }
    if (!isSocket(socket)) {
      return new Check(
          "kubelet",
          Outcome.FAIL,
          "no kubelet.sock in " + directory,
          "start the kubelet; if it runs, its device-plugin directory is elsewhere: --kubelet-dir");
    }
    return Check.pass("kubelet", "kubelet.sock in " + directory);
  }

  private static boolean isSocket(Path path) {
    try {
      int mode = (Integer) Files.getAttribute(path, "unix:mode", LinkOption.NOFOLLOW_LINKS);
      return (mode & 0170000) == 0140000;
    } catch (IOException | UnsupportedOperationException e) {
      return false;
    }
  }

  /** The shim exists and the dynamic loader preloads it into a process. */
  private static Check shim(Path library) {
    String fix =
        "the device plugin's init container copies the shim there; check that the image has one"
            + " for this node's architecture (docs/install.md), or name it with --shim-library";
    if (!Files.isRegularFile(library)) {
      return new Check("shim", Outcome.FAIL, "no file " + library, fix);
    }
    Path trueCommand =
        Stream.of("/bin/true", "/usr/bin/true")
            .map(Path::of)
            .filter(Files::isExecutable)
            .findFirst()
            .orElse(null);
    if (trueCommand == null) {
      return new Check(
          "shim",
          Outcome.WARN,
          library + " exists; no /bin/true to preload it into",
          "run LD_PRELOAD=" + library + " true and look for ld.so errors");
    }
    try {
      ProcessBuilder builder =
          new ProcessBuilder(trueCommand.toString())
              .redirectOutput(ProcessBuilder.Redirect.DISCARD);
      builder.environment().put("LD_PRELOAD", library.toString());
      Process process = builder.start();
      String errors;
      try (InputStream stderr = process.getErrorStream()) {
        errors = new String(stderr.readNBytes(4096), StandardCharsets.UTF_8).strip();
      }
      if (!process.waitFor(PRELOAD_SECONDS, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        return new Check(
            "shim",
            Outcome.FAIL,
            "a process with it preloaded did not end within " + PRELOAD_SECONDS + " s",
            fix);
      }
      if (errors.contains("cannot be preloaded") || process.exitValue() != 0) {
        return new Check(
            "shim",
            Outcome.FAIL,
            "the dynamic loader refuses it: "
                + (errors.isEmpty() ? "exit " + process.exitValue() : errors),
            fix);
      }
    } catch (IOException e) {
      return new Check(
          "shim", Outcome.FAIL, "cannot start a process with it: " + e.getMessage(), fix);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Check("shim", Outcome.WARN, "interrupted", "run vnpu doctor again");
    }
    return Check.pass("shim", library + " preloads");
  }

  /**
   * The state directory and its {@code pods} and {@code chips} are the device plugin's user's and
   * nobody else may write them: whoever can forges shim configs (docs/security.md).
   */
  private static Check state(Path directory) {
    if (!Files.exists(directory)) {
      return Check.pass(
          "state-dir", directory + " does not exist yet; the device plugin creates it");
    }
    String user = System.getProperty("user.name");
    List<String> problems = new ArrayList<>();
    for (Path path : List.of(directory, directory.resolve("pods"), directory.resolve("chips"))) {
      if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
        continue;
      }
      try {
        if (!Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
          problems.add(path + " is not a directory");
          continue;
        }
        String owner = Files.getOwner(path, LinkOption.NOFOLLOW_LINKS).getName();
        if (!owner.equals(user)) {
          problems.add(path + " is owned by " + owner + ", not " + user);
        }
        Set<PosixFilePermission> modes =
            Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS);
        if (modes.contains(PosixFilePermission.GROUP_WRITE)
            || modes.contains(PosixFilePermission.OTHERS_WRITE)) {
          problems.add(path + " is writable by group or others");
        }
      } catch (IOException e) {
        problems.add(path + ": " + e.getMessage());
      }
    }
    if (!problems.isEmpty()) {
      return new Check(
          "state-dir",
          Outcome.FAIL,
          String.join("; ", problems),
          "chown -R "
              + user
              + " "
              + directory
              + " && chmod go-w "
              + directory
              + " "
              + directory.resolve("pods")
              + " "
              + directory.resolve("chips"));
    }
    return Check.pass("state-dir", directory + " is " + user + "'s, writable by nobody else");
  }

  private static Check keys(Path directory) {
    String fix =
        "mount the scheduler's verifying-keys ConfigMap there (the chart does), or name the"
            + " directory with --verifying-keys";
    if (!Files.isDirectory(directory)) {
      return new Check("signing-keys", Outcome.FAIL, directory + " is not a directory", fix);
    }
    Set<String> ids = VerifyingKeys.inDirectory(directory, Clock.systemUTC()).readIds();
    if (ids.isEmpty()) {
      return new Check(
          "signing-keys",
          Outcome.FAIL,
          "no valid verifying key in " + directory + ": every allocation would be refused",
          fix + "; the scheduler writes its keys into the ConfigMap when it starts");
    }
    return Check.pass(
        "signing-keys", ids.size() + " verifying key(s) in " + directory + ": " + ids);
  }
}
