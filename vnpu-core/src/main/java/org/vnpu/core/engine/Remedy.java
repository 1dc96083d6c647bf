package org.vnpu.core.engine;

import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.vnpu.api.LabelKeys;
import org.vnpu.api.SplitMode;
import org.vnpu.api.payload.NodeLock;
import org.vnpu.core.chip.ChipModel;
import org.vnpu.core.inventory.Chip;
import org.vnpu.core.inventory.NodeInventory;
import org.vnpu.core.ledger.ChipState;
import org.vnpu.core.ledger.HostResources;
import org.vnpu.core.ledger.NodeState;
import org.vnpu.core.request.ContainerRequest;
import org.vnpu.core.request.HandoutShape;
import org.vnpu.core.request.PodRequest;

/**
 * What would make a pod fit a node that refused it. The barriers in front of the chips — a device
 * plugin that stopped reporting, another pod's node lock, the node's split mode — are lifted one at
 * a time and the engine is asked again, so the answer also says what waits behind each; a shortage
 * says how much more has to be free.
 *
 * @param needed what the pod needs that the node lacks, the same for every node that lacks it (so
 *     that nodes can be grouped by it), e.g. {@code a hard-mode node with 910B3 chips}
 * @param detail what this node has and what would change it, e.g. {@code a2 is in soft mode; ...}
 */
public record Remedy(String needed, String detail) {

  /** What would make {@code request} fit {@code node}, which refused it with {@code rejection}. */
  public static Remedy of(
      PodRequest request,
      HostResources host,
      NodeState node,
      Rejection rejection,
      PlacementContext context) {
    return switch (rejection.kind()) {
      case STALE_HEARTBEAT -> stale(request, host, node, context);
      case LOCKED -> locked(request, host, node, context);
      case MODE_MISMATCH -> otherMode(request, host, node, context);
      case NOT_ENOUGH_HOST_CPU, NOT_ENOUGH_HOST_MEMORY -> hostShort(host, node, rejection);
      case CHIP_TYPE_NOT_FOUND, DIE_ID_NOT_FOUND, UNHEALTHY, NO_TEMPLATE_FITS, NO_IDLE_CHIP ->
          noChip(node, rejection);
      case SHARES_EXHAUSTED, NOT_ENOUGH_MEMORY, NOT_ENOUGH_CORES, NOT_ENOUGH_CHIPS ->
          chipsShort(request, node, rejection);
    };
  }

  /** A device plugin that stopped reporting, and what waits behind it. */
  private static Remedy stale(
      PodRequest request, HostResources host, NodeState node, PlacementContext context) {
    String name = node.name();
    return new Remedy(
        "a device plugin that reports",
        "the device plugin of "
            + name
            + (node.heartbeat() == null
                ? " never reported"
                : " last reported at " + node.heartbeat())
            + " (tolerance "
            + context.heartbeatTolerance().toSeconds()
            + " s"
            + "): check its pod and its log; once it reports, "
            + behind(request, host, node.withHeartbeat(context.now()), context));
  }

  /** Host CPU or memory that the node's pods request. */
  private static Remedy hostShort(HostResources host, NodeState node, Rejection rejection) {
    String name = node.name();
    return switch (rejection.kind()) {
      case NOT_ENOUGH_HOST_CPU ->
          new Remedy(
              "free host CPU",
              "free "
                  + (host.cpuMilli() - node.hostFree().cpuMilli())
                  + "m more host CPU on "
                  + name
                  + " (the pods there request the rest)");

      case NOT_ENOUGH_HOST_MEMORY ->
          new Remedy(
              "free host memory",
              "free "
                  + (host.memoryMiB() - node.hostFree().memoryMiB())
                  + " MiB more host memory on "
                  + name
                  + " (the pods there request the rest)");
      default -> throw new IllegalArgumentException("not a host shortage: " + rejection);
    };
  }

  /** No chip of the node is of the kind the pod asks for. */
  private static Remedy noChip(NodeState node, Rejection rejection) {
    String name = node.name();
    return switch (rejection.kind()) {
      case CHIP_TYPE_NOT_FOUND ->
          new Remedy(
              "a chip of type " + rejection.detail(),
              name + " has " + types(node.chips()) + " chips");

      case DIE_ID_NOT_FOUND ->
          new Remedy(
              "the chip with die ID " + rejection.detail(),
              "no chip of " + name + " has that die ID");

      case UNHEALTHY ->
          new Remedy(
              "a healthy chip of the requested type",
              "the matching chips of "
                  + name
                  + " are reported unhealthy: check them with npu-smi info on the node");

      case NO_TEMPLATE_FITS ->
          new Remedy(
              "a hard-mode chip with a free template of at least " + rejection.detail(),
              "no " + types(node.chips()) + " chip of " + name + " has such a template free");

      case NO_IDLE_CHIP ->
          new Remedy(
              "an idle chip",
              "every matching chip of "
                  + name
                  + " serves vNPUs: wait for them to end, or move them with vnpu rebalance");
      default -> throw new IllegalArgumentException("not a missing chip: " + rejection);
    };
  }

  /** Chips of the right kind, without enough room. */
  private static Remedy chipsShort(PodRequest request, NodeState node, Rejection rejection) {
    String name = node.name();
    return switch (rejection.kind()) {
      case SHARES_EXHAUSTED ->
          new Remedy(
              "a free vNPU slot on a chip",
              "each matching chip of "
                  + name
                  + " holds its most vNPUs, "
                  + rejection.have()
                  + ": one of them has to end or move");

      case NOT_ENOUGH_MEMORY ->
          new Remedy(
              "free device memory",
              "free "
                  + Rejection.gib(rejection.need() - rejection.have())
                  + " more on one "
                  + types(matching(request, node))
                  + " chip of "
                  + name
                  + " (the largest free is "
                  + Rejection.gib(rejection.have())
                  + ")");

      case NOT_ENOUGH_CORES ->
          new Remedy(
              "free AI Core",
              "free "
                  + (rejection.need() - rejection.have())
                  + " % more AI Core on one "
                  + types(matching(request, node))
                  + " chip of "
                  + name
                  + " (the most free is "
                  + rejection.have()
                  + " %)");

      case NOT_ENOUGH_CHIPS ->
          new Remedy(
              "more chips with room on one node",
              name
                  + " has "
                  + rejection.have()
                  + " of the "
                  + rejection.need()
                  + " chips with room that one container needs");
      default -> throw new IllegalArgumentException("not a chip shortage: " + rejection);
    };
  }

  private static Remedy locked(
      PodRequest request, HostResources host, NodeState node, PlacementContext context) {
    HandoutShape shape = HandoutShape.of(request);
    Optional<NodeLock> holder =
        node.locks().blocker(request.uid(), shape.digest(), shape.counts(), context.now());
    if (holder.isEmpty()) { // the lock expired between the two questions
      return new Remedy("the node lock released", behind(request, host, node, context));
    }
    NodeLock lock = holder.get();
    return new Remedy(
        "the node lock released",
        "wait for the lock that pod "
            + lock.podNamespace()
            + "/"
            + lock.podName()
            + " holds on "
            + node.name()
            + " until its containers get their vNPUs (at the latest "
            + lock.expiresAt()
            + "); then "
            + behind(request, host, node.withLocks(node.locks().without(lock.podUid())), context));
  }

  private static Remedy otherMode(
      PodRequest request, HostResources host, NodeState node, PlacementContext context) {
    SplitMode wanted = request.options().mode();
    NodeInventory inventory = node.inventory();
    NodeState relabelled =
        new NodeState(
            new NodeInventory(
                inventory.node(), wanted, inventory.maxSharesPerChip(), inventory.chips()),
            node.chips(),
            node.hostCapacity(),
            node.hostFree(),
            node.heartbeat(),
            node.locks());
    NodeFit fit = PlacementEngine.fit(request, host, relabelled, context);
    String mode = wanted.wireName();
    String relabel =
        node.name()
            + " is in "
            + inventory.splitMode().wireName()
            + " mode; labelled "
            + LabelKeys.SPLIT_MODE
            + "="
            + mode
            + " once its vNPU pods are gone, ";
    if (fit instanceof NodeFit.Fits fits) {
      List<ChipState> chips =
          fits.plan().steps().stream()
              .map(step -> node.chips().get(step.position()))
              .distinct()
              .toList();
      return new Remedy(
          "a " + mode + "-mode node with " + types(chips) + " chips",
          relabel + "it would take the pod on chip(s) " + indices(chips));
    }
    return new Remedy(
        "a " + mode + "-mode node",
        relabel
            + "it would still refuse the pod: "
            + ((NodeFit.Rejected) fit).rejection().phrase());
  }

  /** What the engine says of {@code node} once a barrier in front of it is lifted. */
  private static String behind(
      PodRequest request, HostResources host, NodeState node, PlacementContext context) {
    NodeFit fit = PlacementEngine.fit(request, host, node, context);
    if (fit instanceof NodeFit.Fits fits) {
      return "the pod fits on chip(s) "
          + indices(fits.plan().steps().stream().map(s -> node.chips().get(s.position())).toList());
    }
    Rejection next = ((NodeFit.Rejected) fit).rejection();
    return next.phrase() + ": " + of(request, host, node, next, context).detail();
  }

  /** The node's chips whose type every container of the request accepts. */
  private static List<ChipState> matching(PodRequest request, NodeState node) {
    return node.chips().stream()
        .filter(
            state ->
                request.containers().stream()
                    .map(ContainerRequest::chipTypes)
                    .allMatch(types -> types.accepts(state.chip().model().name())))
        .toList();
  }

  private static String types(List<ChipState> chips) {
    String names =
        chips.stream()
            .map(ChipState::chip)
            .map(Chip::model)
            .map(ChipModel::name)
            .distinct()
            .sorted()
            .collect(Collectors.joining("/"));
    return names.isEmpty() ? "no" : names;
  }

  private static String indices(List<ChipState> chips) {
    return chips.stream()
        .map(state -> String.valueOf(state.chip().index()))
        .distinct()
        .collect(Collectors.joining(", "));
  }
}
