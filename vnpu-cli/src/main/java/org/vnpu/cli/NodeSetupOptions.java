package org.vnpu.cli;

import java.nio.file.Path;
import org.vnpu.api.SplitMode;
import org.vnpu.deviceplugin.NodeDoctor;
import org.vnpu.deviceplugin.kubelet.KubeletRegistrar;
import picocli.CommandLine.Option;

/**
 * Where the device plugin finds the node's parts besides the driver: the kubelet, the container
 * runtime's NPU hook, and the split mode it is told. {@code vnpu doctor} checks them.
 */
final class NodeSetupOptions {

  @Option(
      names = "--split-mode",
      paramLabel = "MODE",
      converter = SplitModeConverter.class,
      description =
          "This node's split mode, soft or hard, whatever its huawei.com/vnpu-mode label says."
              + " Default: the label's (soft when the node has none).")
  SplitMode splitMode;

  @Option(
      names = "--kubelet-dir",
      paramLabel = "DIR",
      description = "The kubelet's device-plugin directory (default: ${DEFAULT-VALUE}).")
  Path kubeletDirectory = KubeletRegistrar.DEFAULT_DIRECTORY;

  @Option(
      names = "--ascend-runtime",
      paramLabel = "DIR",
      description =
          "Ascend Docker Runtime's installation directory, checked by vnpu doctor"
              + " (default: ${DEFAULT-VALUE}).")
  Path ascendRuntime = NodeDoctor.DEFAULT_ASCEND_RUNTIME;

  /** What {@link NodeDoctor} checks of node {@code node} set up with these and the others. */
  NodeDoctor.Setup doctorSetup(String node, HandoutOptions handout, VerifyingKeysOption keys) {
    return new NodeDoctor.Setup(
        node,
        splitMode,
        kubeletDirectory,
        handout.stateDirectory,
        handout.shimLibrary,
        keys.directory,
        ascendRuntime);
  }
}
