package org.vnpu.deviceplugin;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.api.LabelKeys;
import org.vnpu.api.SplitMode;
import org.vnpu.api.WireValue;
import org.vnpu.api.payload.RegisteredChip;
import org.vnpu.driver.NpuDriver;

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
    checks.add(HostChecks.runtime(setup.ascendRuntime()));
    checks.add(HostChecks.kubelet(setup.kubeletDirectory()));
    checks.add(HostChecks.shim(setup.shimLibrary()));
    checks.add(HostChecks.state(setup.stateDirectory()));
    checks.add(HostChecks.keys(setup.verifyingKeys()));
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
    checks.add(labelCheck(setup.node(), node));
    return Optional.of(node);
  }

  /** Whether the node carries the labels the chart's DaemonSets and the plugin need. */
  private static Check labelCheck(String name, Node node) {
    Map<String, String> labels =
        node.getMetadata().getLabels() == null ? Map.of() : node.getMetadata().getLabels();
    String ready = labels.get(LabelKeys.VNPU);
    String mode = labels.get(LabelKeys.SPLIT_MODE);
    if (!LabelKeys.VNPU_READY_VALUE.equals(ready)) {
      return new Check(
          "labels",
          Outcome.FAIL,
          LabelKeys.VNPU
              + (ready == null ? " is not set" : "=" + ready)
              + ": the chart's DaemonSets do not run on the node",
          "kubectl label node " + name + " " + LabelKeys.VNPU + "=" + LabelKeys.VNPU_READY_VALUE);
    } else if (mode != null && WireValue.parse(SplitMode.class, mode).isEmpty()) {
      return new Check(
          "labels",
          Outcome.FAIL,
          LabelKeys.SPLIT_MODE
              + "="
              + mode
              + " is not one of "
              + WireValue.choices(SplitMode.class)
              + ": the device plugin publishes no inventory",
          "kubectl label node "
              + name
              + " --overwrite "
              + LabelKeys.SPLIT_MODE
              + "=soft (or hard)");
    } else {
      return Check.pass(
          "labels",
          LabelKeys.VNPU
              + "="
              + ready
              + ", split mode "
              + (mode == null ? "soft (no " + LabelKeys.SPLIT_MODE + " label)" : mode));
    }
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
}
