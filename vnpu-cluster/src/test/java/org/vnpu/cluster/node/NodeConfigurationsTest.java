package org.vnpu.cluster.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.vnpu.cluster.UpstreamBinaries;

/** What the real node's configurations must say for this VM, and the node network's addresses. */
class NodeConfigurationsTest {

  private final NodeNetwork network = new NodeNetwork(3, "vnpu-npu-node-3");

  @Test
  void eachNodeHasItsOwnAddressesAndPodSubnet() {
    assertThat(network.nodeAddress()).isEqualTo("10.201.3.2");
    assertThat(network.hostAddress()).isEqualTo("10.201.3.1");
    assertThat(network.podSubnet()).isEqualTo("10.88.3.0/24");
    assertThat(network.namespace()).isEqualTo(Path.of("/var/run/netns/vnpu-npu-node-3"));
    assertThatThrownBy(() -> new NodeNetwork(251, "n"))
        .hasMessageContaining("node network index 251 is not within 0..250");
    assertThatThrownBy(() -> new NodeNetwork(0, "bad name"))
        .hasMessageContaining("network namespace name 'bad name' must be 1 to 40 of a-z");
  }

  @Test
  void theKubeletRunsOnCgroupV1WithCgroupfsOnTheNodesAddressAndKeepsImportedImages() {
    String config =
        Kubelet.configuration(network, Path.of("/n/containerd.sock"), Path.of("/pki/ca.crt"));
    assertThat(config)
        .contains("failCgroupV1: false")
        .contains("cgroupDriver: cgroupfs")
        .contains("containerRuntimeEndpoint: unix:///n/containerd.sock")
        .contains("address: 10.201.3.2")
        .contains("readOnlyPort: 0")
        .contains("anonymous: {enabled: false}")
        .contains("clientCAFile: /pki/ca.crt")
        .contains("podCIDR: 10.88.3.0/24")
        .contains("imageGCHighThresholdPercent: 100")
        .contains("nodefs.available: \"1%\"");
  }

  @Test
  void containerdServesCdiAndNeverLowersOomScoresAndPinsTheSandboxImage() {
    UpstreamBinaries binaries = new UpstreamBinaries(Path.of("/build"));
    String config = Containerd.config(binaries, Path.of("/n/containerd"));
    assertThat(config)
        .contains("version = 3")
        .contains("address = '/n/containerd/containerd.sock'")
        .contains("sandbox = '" + NodeImages.PAUSE + "'")
        .contains("enable_cdi = true")
        .contains("cdi_spec_dirs = ['/n/containerd/cdi']")
        .contains("restrict_oom_score_adj = true")
        .contains("BinaryName = '/build/bin/runc'")
        .contains("SystemdCgroup = false")
        .contains("bin_dirs = ['/build/cni/bin']");
    assertThat(Containerd.podNetwork(network)).contains("\"subnet\": \"10.88.3.0/24\"");
  }

  @Test
  void kubeProxyMasqueradesServiceTrafficAndLeavesConntrackAlone() {
    String config = KubeProxy.configuration("npu-node-3", network, Path.of("/k/kubeconfig"));
    assertThat(config)
        .contains("mode: iptables")
        .contains("hostnameOverride: npu-node-3")
        .contains("healthzBindAddress: 10.201.3.2:10256")
        .contains("clusterCIDR: " + NodeNetwork.CLUSTER_POD_RANGE)
        .contains("masqueradeAll: true")
        .contains("maxPerCore: 0");
  }
}
