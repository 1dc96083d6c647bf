package org.vnpu.deviceplugin.allocate;

import io.fabric8.kubernetes.api.model.Pod;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.BindPhase;
import org.vnpu.api.codec.MalformedPayloadException;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.payload.ContainerAllocation;
import org.vnpu.api.payload.NodeLock;
import org.vnpu.api.payload.NodeLockSet;
import org.vnpu.api.payload.PendingContainers;
import org.vnpu.api.payload.PodAllocation;
import org.vnpu.api.payload.RegisteredChip;
import org.vnpu.api.payload.SignedAllocation;
import org.vnpu.api.payload.VnpuAssignment;
import org.vnpu.api.signing.AllocationVerifier;
import org.vnpu.handouts.NodeFiles;
import org.vnpu.kube.NodeLocks;

/**
 * Decides whether an Allocate call may hand anything out, from what the API server says. No I/O:
 * the caller reads the node and the pod, the gate checks them in order and names the first thing
 * wrong. The pod must be the one whose entry in the node's locks the call serves (by UID), bound to
 * this node, in bind phase {@code allocating}, with an allocation signed by the scheduler for this
 * pod and this node, and a next pending container with as many vNPUs as the kubelet sent device
 * IDs, each on a chip the node has now: the same index and die ID, healthy (a card replaced or
 * failed since the scheduler decided is refused, not handed out).
 */
public final class AllocationGate {

  /** What may be handed out: the next container of a verified allocation. */
  public record Admission(
      NodeFiles.PodRecord pod,
      PodAllocation allocation,
      ContainerAllocation container,
      List<String> remaining) {}

  private final String node;
  private final PayloadCodec codec;
  private final AllocationVerifier verifier;

  public AllocationGate(String node, PayloadCodec codec, AllocationVerifier verifier) {
    this.node = node;
    this.codec = codec;
    this.verifier = verifier;
  }

  /**
   * The node's lock entries that an Allocate call for {@code count} vNPUs may serve at {@code now},
   * in the order to try them ({@link NodeLockSet#serving}); never empty.
   */
  public List<NodeLock> holders(Map<String, String> leaseAnnotations, int count, Instant now)
      throws AllocationRefusedException {
    if (leaseAnnotations == null
        || leaseAnnotations.keySet().stream()
            .noneMatch(key -> key.startsWith(AnnotationKeys.NODE_LOCK_PREFIX))) {
      throw new AllocationRefusedException(
          "node "
              + node
              + " holds no lock entry (no "
              + AnnotationKeys.NODE_LOCK_PREFIX
              + "<pod UID> annotation on Lease "
              + NodeLocks.NAMESPACE
              + "/"
              + node
              + "): no pod is being allocated here (was it scheduled by the vNPU scheduler?)");
    }
    NodeLockSet locks;
    try {
      locks = codec.locksOf(leaseAnnotations);
    } catch (MalformedPayloadException e) {
      throw new AllocationRefusedException(
          "node " + node + " has a malformed lock: " + e.getMessage());
    }
    List<NodeLock> serving = locks.serving(count, now);
    if (!serving.isEmpty()) {
      return serving;
    }
    String holders =
        locks.holders().stream()
            .map(
                holder ->
                    holder.podNamespace()
                        + "/"
                        + holder.podName()
                        + " asks for "
                        + holder.counts()
                        + (holder.isExpiredAt(now) ? ", expired at " + holder.expiresAt() : ""))
            .collect(Collectors.joining("; "));
    throw new AllocationRefusedException(
        "no pod reserved on node "
            + node
            + " asks for "
            + count
            + " vNPU(s) now"
            + (holders.isEmpty() ? "" : " (" + holders + ")"));
  }

  /**
   * Checks {@code pod} (null when it does not exist) against {@code lock} and the node's current
   * {@code chips}, and returns what its next container receives.
   */
  public Admission admit(NodeLock lock, Pod pod, int deviceCount, List<RegisteredChip> chips)
      throws AllocationRefusedException {
    String named = lock.podNamespace() + "/" + lock.podName();
    NodeFiles.PodRecord record = lockedPod(lock, pod, named);
    Map<String, String> annotations = allocating(pod, named, record);
    PodAllocation allocation = verified(named, annotations, lock, record);
    signedForTheLock(allocation, lock, named, record);
    List<String> pending = pending(named, annotations, record);
    ContainerAllocation container = next(allocation, pending.get(0), deviceCount, named, record);
    for (VnpuAssignment vnpu : container.vnpus()) {
      onCurrentChip(named, container.name(), vnpu, chips, record);
    }
    return new Admission(record, allocation, container, pending.subList(1, pending.size()));
  }

  /** The record of the pod the lock names, which must exist with the lock's UID. */
  private NodeFiles.PodRecord lockedPod(NodeLock lock, Pod pod, String named)
      throws AllocationRefusedException {
    if (pod == null) {
      throw new AllocationRefusedException(
          "pod " + named + " named by the lock on node " + node + " does not exist");
    }
    if (!lock.podUid().equals(pod.getMetadata().getUid())) {
      throw new AllocationRefusedException(
          "pod "
              + named
              + " has UID "
              + pod.getMetadata().getUid()
              + " but the lock on node "
              + node
              + " names UID "
              + lock.podUid());
    }
    return new NodeFiles.PodRecord(lock.podUid(), lock.podNamespace(), lock.podName());
  }

  /**
   * Whether the pod is bound to this node and its allocation is on it (it is allocating): an
   * Allocate may be judged on it.
   */
  boolean allocatingHere(Pod pod) {
    return pod != null && notAllocatingHere(pod, "").isEmpty();
  }

  /** The annotations of the pod, which must be bound to this node and be allocating. */
  private Map<String, String> allocating(Pod pod, String named, NodeFiles.PodRecord record)
      throws AllocationRefusedException {
    Optional<String> why = notAllocatingHere(pod, named);
    if (why.isPresent()) {
      throw new AllocationRefusedException(why.get(), record);
    }
    return pod.getMetadata().getAnnotations();
  }

  /** Why the pod {@code named} may not be allocated here: its node or its bind phase. */
  private Optional<String> notAllocatingHere(Pod pod, String named) {
    String boundTo = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
    if (!node.equals(boundTo)) {
      return Optional.of(
          "pod "
              + named
              + (boundTo == null ? " is not bound to a node" : " is bound to node " + boundTo)
              + ", not to this node "
              + node);
    }
    Map<String, String> annotations = pod.getMetadata().getAnnotations();
    String phase = annotations == null ? null : annotations.get(AnnotationKeys.BIND_PHASE);
    if (!BindPhase.ALLOCATING.wireName().equals(phase)) {
      return Optional.of(
          "pod "
              + named
              + " has "
              + AnnotationKeys.BIND_PHASE
              + "="
              + phase
              + ", expected "
              + BindPhase.ALLOCATING.wireName());
    }
    return Optional.empty();
  }

  /** The allocation must be signed for the lock's pod on this node. */
  private void signedForTheLock(
      PodAllocation allocation, NodeLock lock, String named, NodeFiles.PodRecord record)
      throws AllocationRefusedException {
    if (!allocation.podUid().equals(lock.podUid()) || !allocation.node().equals(node)) {
      throw new AllocationRefusedException(
          "the allocation of pod "
              + named
              + " was signed for pod UID "
              + allocation.podUid()
              + " on node "
              + allocation.node()
              + ", not for UID "
              + lock.podUid()
              + " on "
              + node,
          record);
    }
  }

  /** The allocation of the next pending container, which must have as many vNPUs as asked. */
  private static ContainerAllocation next(
      PodAllocation allocation,
      String next,
      int deviceCount,
      String named,
      NodeFiles.PodRecord record)
      throws AllocationRefusedException {
    Optional<ContainerAllocation> container =
        allocation.containers().stream().filter(c -> c.name().equals(next)).findFirst();
    if (container.isEmpty()) {
      throw new AllocationRefusedException(
          "pod " + named + ": pending container " + next + " has no vNPUs in the allocation",
          record);
    }
    if (container.get().vnpus().size() != deviceCount) {
      throw new AllocationRefusedException(
          "pod "
              + named
              + ": the kubelet asks for "
              + deviceCount
              + " device(s) for the next container, but container "
              + next
              + " was allocated "
              + container.get().vnpus().size()
              + " vNPU(s)",
          record);
    }
    return container.get();
  }

  private static void onCurrentChip(
      String named,
      String container,
      VnpuAssignment vnpu,
      List<RegisteredChip> chips,
      NodeFiles.PodRecord record)
      throws AllocationRefusedException {
    Optional<RegisteredChip> chip =
        chips.stream().filter(c -> c.index() == vnpu.chipIndex()).findFirst();
    String problem =
        chip.isEmpty()
            ? "the node has no chip " + vnpu.chipIndex() + " now"
            : !chip.get().dieId().equals(vnpu.dieId())
                ? "chip "
                    + vnpu.chipIndex()
                    + " is die "
                    + chip.get().dieId()
                    + " now, not "
                    + vnpu.dieId()
                : !chip.get().healthy() ? "chip " + vnpu.chipIndex() + " is unhealthy now" : null;
    if (problem != null) {
      throw new AllocationRefusedException(
          "pod "
              + named
              + ": container "
              + container
              + " was allocated a vNPU on chip "
              + vnpu.chipIndex()
              + " ("
              + vnpu.dieId()
              + "), but "
              + problem,
          record);
    }
  }

  private PodAllocation verified(
      String named, Map<String, String> annotations, NodeLock lock, NodeFiles.PodRecord record)
      throws AllocationRefusedException {
    SignedAllocation signed =
        decoded(named, annotations, AnnotationKeys.ALLOCATION, codec::decodeAllocation, record);
    if (!verifier.verifies(signed)) {
      throw new AllocationRefusedException(
          "pod "
              + named
              + ": the signature of "
              + AnnotationKeys.ALLOCATION
              + " does not verify ("
              + (verifier.knows(signed.keyId())
                  ? "edited or forged"
                  : "signed with key " + signed.keyId() + ", which this node does not know")
              + ")",
          record);
    }
    if (!signed.nonce().equals(lock.nonce())) {
      throw new AllocationRefusedException(
          "pod "
              + named
              + ": its allocation was signed for another reservation (nonce "
              + signed.nonce()
              + ") than the node lock's (nonce "
              + lock.nonce()
              + "): an older allocation is never handed out again",
          record);
    }
    return signed.allocation();
  }

  private List<String> pending(
      String named, Map<String, String> annotations, NodeFiles.PodRecord record)
      throws AllocationRefusedException {
    PendingContainers pending =
        decoded(
            named, annotations, AnnotationKeys.DEVICES_TO_ALLOCATE, codec::decodePending, record);
    if (pending.containers().isEmpty()) {
      throw new AllocationRefusedException(
          "pod " + named + ": every container already received its vNPUs", record);
    }
    return pending.containers();
  }

  /** The pod's annotation {@code key}, decoded; refused when absent or malformed. */
  private static <T> T decoded(
      String named,
      Map<String, String> annotations,
      String key,
      Function<String, T> decoder,
      NodeFiles.PodRecord record)
      throws AllocationRefusedException {
    String value = annotations.get(key);
    if (value == null) {
      throw new AllocationRefusedException(
          "pod " + named + " has no " + key + " annotation", record);
    }
    try {
      return decoder.apply(value);
    } catch (MalformedPayloadException e) {
      throw new AllocationRefusedException("pod " + named + ": " + e.getMessage(), record);
    }
  }
}
