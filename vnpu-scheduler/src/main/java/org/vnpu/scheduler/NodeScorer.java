package org.vnpu.scheduler;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.api.KubernetesNames;
import org.vnpu.core.engine.NodeFit;
import org.vnpu.core.engine.PlacementContext;
import org.vnpu.core.engine.PlacementEngine;
import org.vnpu.core.ledger.NodeState;
import org.vnpu.core.request.PodManifest;
import org.vnpu.core.request.PodRequest;

/**
 * Scores 0..100 of the nodes a pod fits on: by its vNPU resources over the nodes as it sees them,
 * or, asking for none, by its vNPU ResourceClaims over the DRA driver's chips ({@link DraLedger}).
 */
final class NodeScorer {

  private static final Logger LOG = LoggerFactory.getLogger(NodeScorer.class);

  /**
   * The most claims of one request read from the API server: the request's names are a tenant's.
   */
  static final int MAX_CLAIMS_READ = 16;

  private final SchedulerState state;
  private final DraLedger dra;
  private final ClusterPort cluster;

  NodeScorer(SchedulerState state, DraLedger dra, ClusterPort cluster) {
    this.state = state;
    this.dra = dra;
    this.cluster = cluster;
  }

  /** See {@link Scheduler#scores(PodManifest, List, Collection)}. */
  Map<String, Double> scores(PodManifest pod, List<String> claims, Collection<String> nodes)
      throws SchedulingException {
    PodRequest request = state.request(pod);
    if (!request.requestsVnpus() && !claims.isEmpty()) {
      return claimScores(request, claims, nodes);
    }
    SchedulerState.Snapshot seen = state.snapshot(pod, request, nodes, Set.of());
    Function<NodeState, NodeFit> scoring =
        PlacementEngine.scoring(request, SchedulerState.hostRequest(pod), seen.context());
    Map<String, Double> scores = new LinkedHashMap<>();
    seen.nodes()
        .forEach(
            (name, node) -> {
              if (scoring.apply(node) instanceof NodeFit.Fits fit) {
                scores.put(name, fit.score());
              }
            });
    return scores;
  }

  /**
   * Scores by the pod's claims. kube-scheduler asks once its own informer has the claims, which may
   * be before the extender's has them: those not seen yet (at most {@value #MAX_CLAIMS_READ}, each
   * a valid object name) are read from the API server, outside the scheduler's lock.
   */
  private Map<String, Double> claimScores(
      PodRequest request, List<String> claims, Collection<String> nodes) {
    List<String> unseen =
        dra.unseen(request.namespace(), claims).stream()
            .filter(KubernetesNames::isSubdomain)
            .toList();
    if (unseen.size() > MAX_CLAIMS_READ) {
      LOG.warn(
          "pod {}/{} names {} claims the extender has not seen; only {} are read",
          request.namespace(),
          request.name(),
          unseen.size(),
          MAX_CLAIMS_READ);
    }
    Map<String, ResourceClaim> read = new HashMap<>();
    for (String name : unseen.subList(0, Math.min(unseen.size(), MAX_CLAIMS_READ))) {
      cluster.claim(request.namespace(), name).ifPresent(claim -> read.put(name, claim));
    }
    PlacementContext context;
    synchronized (state) {
      context = state.context();
    }
    return dra.scores(request, claims, read, nodes, context);
  }
}
