package org.vnpu.cluster.node;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.util.List;
import org.vnpu.deviceplugin.kubelet.AllocateLog;
import org.vnpu.kubelet.PodResourcesEmulator;
import org.vnpu.sandbox.Sandbox;
import org.vnpu.sandbox.SandboxNode;

/** The sandbox's kubelet emulator on a node like the real one, as a {@link KubeletSide}. */
final class EmulatedKubeletSide implements KubeletSide {

  private final Sandbox sandbox;
  private final SandboxNode node;

  EmulatedKubeletSide(Sandbox sandbox, String node) {
    this.sandbox = sandbox;
    this.node = sandbox.node(node);
  }

  @Override
  public String name() {
    return "kubelet emulator";
  }

  @Override
  public KubernetesClient client() {
    return sandbox.client();
  }

  @Override
  public Path podResourcesSocket() {
    return sandbox
        .nodeDirectory(node.name())
        .resolve(PodResourcesEmulator.DIRECTORY)
        .resolve(PodResourcesEmulator.SOCKET);
  }

  @Override
  public int allocateMark() {
    return node.allocateCalls().size();
  }

  @Override
  public void restartKubelet() {
    node.restartKubelet();
  }

  @Override
  public List<AllocateLog.Call> allocateCallsSince(int mark) {
    List<AllocateLog.Call> calls =
        node.allocateCalls().stream()
            .map(
                call ->
                    new AllocateLog.Call(
                        call.resource(), List.of(AllocateLog.shown(call.deviceIds()))))
            .toList();
    return calls.subList(mark, calls.size());
  }
}
