package org.vnpu.scheduler;

import java.util.Map;
import org.vnpu.core.ledger.HostResources;

/**
 * A Node as the scheduler's state reads it ({@link
 * Fabric8Views#seen(io.fabric8.kubernetes.api.model.Node)}): its name, its annotations
 * (registration, handshake, locks) and the host it can allocate.
 */
record NodeSeen(String name, Map<String, String> annotations, HostResources allocatable) {

  NodeSeen {
    annotations = Map.copyOf(annotations);
  }
}
