package org.vnpu.deviceplugin.allocate;

import java.util.Optional;
import org.vnpu.handouts.NodeFiles;

/** An Allocate call that hands out nothing; the message says exactly what was wrong. */
public final class AllocationRefusedException extends Exception {

  private static final long serialVersionUID = 1L;

  private final transient NodeFiles.PodRecord pod;

  /** A refusal that cannot be pinned on a pod (no lock, or a lock that names no live pod). */
  public AllocationRefusedException(String message) {
    this(message, null);
  }

  /** A refusal of {@code pod}'s allocation: the pod's bind phase becomes failed. */
  public AllocationRefusedException(String message, NodeFiles.PodRecord pod) {
    super(message);
    this.pod = pod;
  }

  /** The pod whose allocation was refused, if the lock identified one. */
  public Optional<NodeFiles.PodRecord> pod() {
    return Optional.ofNullable(pod);
  }
}
