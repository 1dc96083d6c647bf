package org.vnpu.deviceplugin.node;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.api.payload.HandoutRecord;
import org.vnpu.handouts.NodeFiles;
import org.vnpu.kube.NodeLocks;
import org.vnpu.kube.NodePods;
import org.vnpu.kube.PodPhases;

/**
 * Removes the files of hand-outs whose pods are gone: deleted, replaced by a pod of the same name,
 * or finished (Succeeded or Failed). Each sweep lists this node's pods once ({@code spec.nodeName}
 * field selector); a pod the list does not show is read on its own before its files go, so a server
 * that answers a field selector wrongly (fabric8's mock answers none) costs reads, not files. The
 * files of a hand-out still recorded on the node's locks stay: the pod they name may not be the pod
 * that uses them ({@link org.vnpu.api.payload.HandoutRecord}).
 */
public final class PodFileJanitor {

  private static final Logger LOG = LoggerFactory.getLogger(PodFileJanitor.class);

  private final KubernetesClient client;
  private final String node;
  private final NodeLocks locks;
  private final NodeFiles files;
  private final Consumer<String> forget;

  /**
   * @param forget told the key (the reservation's nonce) of every hand-out whose files were removed
   */
  public PodFileJanitor(
      KubernetesClient client,
      String node,
      NodeLocks locks,
      NodeFiles files,
      Consumer<String> forget) {
    this.client = client;
    this.node = node;
    this.locks = locks;
    this.files = files;
    this.forget = forget;
  }

  /** One sweep. Never throws. */
  public void sweep() {
    try {
      List<NodeFiles.KeyedFiles> handouts = files.pods();
      if (handouts.isEmpty()) {
        return;
      }
      Set<String> recorded =
          locks.current(node).handouts().stream()
              .map(HandoutRecord::nonce)
              .collect(Collectors.toSet());
      NodePods pods = NodePods.of(client, node);
      for (NodeFiles.KeyedFiles handout : handouts) {
        if (recorded.contains(handout.key())) {
          continue;
        }
        NodeFiles.PodRecord record = handout.pod();
        Pod pod = pods.get(record.namespace(), record.name()).orElse(null);
        if (pod == null
            || !record.uid().equals(pod.getMetadata().getUid())
            || PodPhases.finished(pod)) {
          files.remove(handout.key());
          forget.accept(handout.key());
          LOG.info(
              "removed the files of pod {}/{} ({})",
              record.namespace(),
              record.name(),
              record.uid());
        }
      }
    } catch (IOException | RuntimeException e) {
      LOG.warn("cannot clean up pod files, will retry: {}", e.toString());
    }
  }
}
