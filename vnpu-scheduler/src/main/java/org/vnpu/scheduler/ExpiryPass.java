package org.vnpu.scheduler;

import io.fabric8.kubernetes.api.model.Pod;
import java.time.Instant;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ends what outlived its time, in one pass at the state's clock: reservations whose pods were not
 * bound in time (annotations, ledger and lock), places held for preemptors, and places held for
 * replacements of moved pods. Node lock entries are not ended here: each carries its own expiry,
 * which every reader compares ({@code NodeLockSet.live}) and every write drops, so that the lock of
 * a scheduler that died ends without it.
 */
final class ExpiryPass {

  private static final Logger LOG = LoggerFactory.getLogger(ExpiryPass.class);

  /** How often an expiry reads a pod again that changed while it was cleared, in one pass. */
  private static final int ATTEMPTS = 3;

  private final SchedulerState state;
  private final ClusterPort cluster;
  private final ClusterIntake intake;
  private final PodReserver reserver;

  ExpiryPass(
      SchedulerState state, ClusterPort cluster, ClusterIntake intake, PodReserver reserver) {
    this.state = state;
    this.cluster = cluster;
    this.intake = intake;
    this.reserver = reserver;
  }

  /** One pass: everything past its time at the state's clock ends. */
  void expire() {
    List<Reservations.Reservation> expired;
    synchronized (state) {
      Instant now = state.clock().instant();
      expired = state.cluster().expiredAt(now);
      state.cluster().holds().expire(now);
      state.cluster().replacements().expire(now);
    }
    expired.forEach(this::expire);
  }

  /**
   * Ends a reservation whose time ran out. The API server's pod decides, not the state, whose
   * informer may not have delivered a binding yet: a bound pod keeps its vNPUs, its reservation
   * ended in the binding. An unbound pod's annotations are removed from the version read, so that a
   * binding landing meanwhile is not undone. A pod deleted, or replaced by another of its name, is
   * released as a deleted pod is, and the other pod is left alone. When the API server cannot be
   * read or written, the reservation stands until the next pass.
   */
  private void expire(Reservations.Reservation reservation) {
    reserver.awaitWritten(reservation.uid()); // what it ends is on the API server first
    try {
      for (int attempt = 1; ; attempt++) {
        Pod current = cluster.pod(reservation.namespace(), reservation.name()).orElse(null);
        if (current == null || !current.getMetadata().getUid().equals(reservation.uid())) {
          LOG.info(
              "reservation of pod {}/{} on node {} ended: the pod is gone",
              reservation.namespace(),
              reservation.name(),
              reservation.node());
          intake.podRemoved(reservation.uid());
          return;
        }
        if (Fabric8Views.bound(current)) {
          LOG.info(
              "reservation of pod {}/{} on node {} ended: the pod is bound to {}",
              reservation.namespace(),
              reservation.name(),
              reservation.node(),
              current.getSpec().getNodeName());
          intake.podChanged(current);
          return;
        }
        if (cluster.annotateIfUnchanged(current, ReservationAnnotations.REMOVED)) {
          break;
        }
        if (attempt == ATTEMPTS) {
          LOG.warn(
              "pod {}/{} changed {} times while its reservation expired; trying again later",
              reservation.namespace(),
              reservation.name(),
              attempt);
          return;
        }
      }
    } catch (RuntimeException e) {
      LOG.warn(
          "cannot end the reservation of pod {}/{} ({}); trying again later",
          reservation.namespace(),
          reservation.name(),
          e.getMessage());
      return;
    }
    LOG.info(
        "reservation of pod {}/{} on node {} expired unbound; released",
        reservation.namespace(),
        reservation.name(),
        reservation.node());
    reserver.drop(reservation.uid());
    reserver.unlock(reservation.node(), reservation.uid());
  }
}
