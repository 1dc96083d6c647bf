package org.vnpu.deviceplugin.node;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.util.Set;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.handouts.NodeFiles;

/**
 * Removes the per-pod files of pods that are gone: deleted, replaced by a pod of the same name, or
 * finished (Succeeded or Failed). Runs by polling the pods it has files for, one GET each, because
 * field selectors on {@code spec.nodeName} are not available everywhere (fabric8's mock).
 */
public final class PodFileJanitor {

  private static final Logger LOG = LoggerFactory.getLogger(PodFileJanitor.class);
  private static final Set<String> FINISHED = Set.of("Succeeded", "Failed");

  private final KubernetesClient client;
  private final NodeFiles files;
  private final Consumer<String> forget;

  /**
   * @param forget told the UID of every pod whose files were removed
   */
  public PodFileJanitor(KubernetesClient client, NodeFiles files, Consumer<String> forget) {
    this.client = client;
    this.files = files;
    this.forget = forget;
  }

  /** One sweep. Never throws. */
  public void sweep() {
    try {
      for (NodeFiles.PodRecord record : files.pods()) {
        Pod pod = client.pods().inNamespace(record.namespace()).withName(record.name()).get();
        if (pod == null
            || !record.uid().equals(pod.getMetadata().getUid())
            || (pod.getStatus() != null && FINISHED.contains(pod.getStatus().getPhase()))) {
          files.remove(record.uid());
          forget.accept(record.uid());
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
