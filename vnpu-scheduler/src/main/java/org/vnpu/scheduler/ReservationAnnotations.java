package org.vnpu.scheduler;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.BindPhase;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.payload.ContainerAllocation;
import org.vnpu.api.payload.PendingContainers;
import org.vnpu.api.signing.AllocationSigner;
import org.vnpu.core.ledger.AllocationPlan;

/**
 * The annotations a reservation writes on its pod (the signed allocation, the containers pending,
 * the node and the bind phase) and their removal, which undoes it.
 */
final class ReservationAnnotations {

  /** The removal of every key {@link #of} writes. */
  static final Map<String, String> REMOVED = removal();

  private final AllocationSigner signer;
  private final PayloadCodec codec;
  private final Clock clock;

  ReservationAnnotations(AllocationSigner signer, PayloadCodec codec, Clock clock) {
    this.signer = signer;
    this.codec = codec;
    this.clock = clock;
  }

  /** The plan's allocation signed with {@code nonce}, every container pending, phase allocating. */
  Map<String, String> of(AllocationPlan plan, String nonce) {
    List<String> pending = new ArrayList<>();
    for (ContainerAllocation container : plan.allocation().containers()) {
      pending.add(container.name());
    }
    Map<String, String> values = new HashMap<>();
    values.put(
        AnnotationKeys.ALLOCATION, codec.encodeAllocation(signer.sign(plan.allocation(), nonce)));
    values.put(
        AnnotationKeys.DEVICES_TO_ALLOCATE, codec.encodePending(new PendingContainers(pending)));
    values.put(AnnotationKeys.ASSIGNED_NODE, plan.node());
    values.put(AnnotationKeys.BIND_TIME, clock.instant().toString());
    values.put(AnnotationKeys.BIND_PHASE, BindPhase.ALLOCATING.wireName());
    return values;
  }

  /** The plan's containers and chips, for logs and events. */
  static String describe(AllocationPlan plan) {
    return plan.allocation().containers().stream()
        .map(
            c ->
                c.name()
                    + ": "
                    + c.vnpus().size()
                    + " vNPU(s) on chip(s) "
                    + c.vnpus().stream().map(v -> Integer.toString(v.chipIndex())).toList())
        .toList()
        .toString();
  }

  private static Map<String, String> removal() {
    Map<String, String> removal = new HashMap<>();
    for (String key :
        List.of(
            AnnotationKeys.ALLOCATION,
            AnnotationKeys.DEVICES_TO_ALLOCATE,
            AnnotationKeys.ASSIGNED_NODE,
            AnnotationKeys.BIND_TIME,
            AnnotationKeys.BIND_PHASE)) {
      removal.put(key, null);
    }
    return Collections.unmodifiableMap(removal);
  }
}
