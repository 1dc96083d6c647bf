package org.vnpu.scheduler;

import java.time.Instant;
import java.util.Optional;
import org.vnpu.api.payload.PodRef;
import org.vnpu.core.request.PodManifest;

/**
 * A Pod as the scheduler's state reads it ({@link
 * Fabric8Views#seen(io.fabric8.kubernetes.api.model.Pod)}): what the engine reads of it, the node
 * it is bound to (null while it is not), whether it finished, when it started (empty before its
 * status says) and its controlling owner's UID (null without one).
 */
record PodSeen(
    PodManifest manifest,
    String nodeName,
    boolean finished,
    Optional<Instant> started,
    String owner) {

  String uid() {
    return manifest.uid();
  }

  boolean bound() {
    return nodeName != null;
  }

  /** The pod's reference: UID, namespace and name. */
  PodRef ref() {
    return new PodRef(manifest.uid(), manifest.namespace(), manifest.name());
  }
}
