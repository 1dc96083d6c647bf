package org.vnpu.cluster.node;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.vnpu.deviceplugin.kubelet.AllocateLog;

/**
 * A node whose kubelet the agreement cases run against: the real kubelet or the sandbox's emulator,
 * each with the real device plugin registered. Both are read through the same interfaces: the API
 * server, the kubelet's pod-resources socket, and the Allocate calls the plugin received.
 */
interface KubeletSide {

  /** What the table calls it. */
  String name();

  /** A client of the API server the node belongs to. */
  KubernetesClient client();

  /** The kubelet's {@code pod-resources/kubelet.sock}. */
  Path podResourcesSocket();

  /** How many Allocate calls were made so far: a mark for {@link #allocateCallsSince}. */
  int allocateMark();

  /**
   * Restarts the kubelet and waits until the device plugin has registered every resource with it
   * again, so that the next case does not race the registrations.
   */
  void restartKubelet() throws IOException, InterruptedException;

  /** The Allocate calls made after {@code mark}, in order, each container's IDs as logged. */
  List<AllocateLog.Call> allocateCallsSince(int mark);
}
