package org.vnpu.deviceplugin.allocate;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.BindPhase;
import org.vnpu.api.LogLevel;
import org.vnpu.api.ShimContract;
import org.vnpu.api.SplitMode;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.codec.ShimConfigFormat;
import org.vnpu.api.payload.ContainerAllocation;
import org.vnpu.api.payload.HandoutRecord;
import org.vnpu.api.payload.NodeLock;
import org.vnpu.api.payload.NodeLockSet;
import org.vnpu.api.payload.PendingContainers;
import org.vnpu.api.payload.PodRef;
import org.vnpu.api.payload.RegisteredChip;
import org.vnpu.api.payload.ShimConfig;
import org.vnpu.api.payload.ShimDevice;
import org.vnpu.api.payload.VnpuAssignment;
import org.vnpu.handouts.Handout;
import org.vnpu.handouts.Handouts;
import org.vnpu.handouts.NodeFiles;
import org.vnpu.kube.AnnotationPatches;
import org.vnpu.kube.NodeLocks;
import org.vnpu.kube.PodPhases;

/**
 * Answers the kubelet's Allocate calls, one container at a time: finds the entry of the node's
 * locks that the call serves and the pod it names, lets the {@link AllocationGate} verify them,
 * writes the container's shim config, and records progress: the pending list shrinks by one and the
 * entry counts the hand-out; after the last container the pod's bind phase becomes {@code success}
 * and its entry is released. A refusal sets the bind phase to {@code failed} (when an entry
 * identified the pod) and releases the entry, unless the entry's pod is not bound yet (the call is
 * not for it). A repeated call with the same device IDs, while the pod that got them is alive,
 * returns the same answer. A call that comes before the reservation of the pod being admitted is
 * written waits for it, for at most the reservation wait.
 */
public final class Allocator {

  private static final Logger LOG = LoggerFactory.getLogger(Allocator.class);

  /** How often a call waiting for its reservation reads the node again. */
  private static final Duration RESERVATION_POLL = Duration.ofMillis(50);

  private final KubernetesClient client;
  private final String node;
  private final AllocationGate gate;
  private final PayloadCodec codec;
  private final NodeFiles files;
  private final Handouts handouts;
  private final LogLevel shimLogLevel;
  private final Clock clock;
  private final AnnotationPatches patches;
  private final NodeLocks locks;
  private final Runnable lastHandedOut;
  private final Duration reservationWait;
  private final ShimConfigFormat shimConfigs = new ShimConfigFormat();
  private final Map<Set<String>, Answer> answers = new ConcurrentHashMap<>();
  private volatile List<RegisteredChip> chips = List.of();

  /** An answer given: the hand-out's files are under {@code nonce}. */
  private record Answer(String nonce, Handout handout) {}

  public Allocator(
      KubernetesClient client,
      String node,
      AllocationGate gate,
      PayloadCodec codec,
      NodeFiles files,
      Handouts handouts,
      LogLevel shimLogLevel,
      Clock clock,
      NodeLocks locks,
      Runnable lastHandedOut,
      Duration reservationWait) {
    this.client = client;
    this.node = node;
    this.gate = gate;
    this.codec = codec;
    this.files = files;
    this.handouts = handouts;
    this.shimLogLevel = shimLogLevel;
    this.clock = clock;
    this.patches = new AnnotationPatches(client);
    this.locks = locks;
    this.lastHandedOut = lastHandedOut;
    this.reservationWait = reservationWait;
  }

  /**
   * What the container that the kubelet gave {@code deviceIds} receives.
   *
   * @throws AllocationRefusedException when nothing may be handed out; the message says why
   */
  public synchronized Handout allocate(List<String> deviceIds) throws AllocationRefusedException {
    Set<String> key = new TreeSet<>(deviceIds);
    Served served = awaitServed(key, deviceIds.size());
    if (served.repeated() != null) {
      return served.repeated();
    }
    NodeLock lock = served.lock();
    Pod pod = served.pod();
    try {
      AllocationGate.Admission admission = gate.admit(lock, pod, deviceIds.size(), chips);
      Handout handout = handOut(admission, lock.nonce());
      claim(admission, lock, pod, key);
      record(admission);
      answers.put(key, new Answer(lock.nonce(), handout));
      return handout;
    } catch (AllocationRefusedException e) {
      if (pod != null && pod.getSpec().getNodeName() == null) {
        throw e; // not this call's pod: its binding is on its way
      }
      e.pod().ifPresent(this::markFailed);
      locks.release(node, lock.podUid());
      throw e;
    }
  }

  /**
   * What a call serves: the earlier answer to the same devices, or an entry of the node's locks and
   * its pod, read now.
   */
  private record Served(Handout repeated, NodeLock lock, Pod pod) {}

  /**
   * What the call for {@code count} devices {@code key} serves. The scheduler writes a reservation
   * after answering Volcano's allocateFunc, and Volcano may bind the pod first: while no entry
   * names a pod bound here, the call waits for its entry, reading the node again, for at most the
   * reservation wait; after it, the call is judged on what is there.
   */
  private Served awaitServed(Set<String> key, int count) throws AllocationRefusedException {
    long started = System.nanoTime();
    long deadline = started + reservationWait.toNanos();
    boolean waited = false;
    while (true) {
      boolean last = System.nanoTime() - deadline >= 0;
      try {
        Served served = served(key, count);
        if (served.repeated() != null || gate.allocatingHere(served.pod()) || last) {
          if (waited) {
            LOG.info(
                "Allocate for {} vNPU(s) found its reservation after {} ms",
                count,
                (System.nanoTime() - started) / 1_000_000);
          }
          return served;
        }
      } catch (AllocationRefusedException e) {
        if (last) {
          throw e;
        }
      }
      if (!waited) {
        LOG.info(
            "Allocate for {} vNPU(s) waits for the reservation of the pod being admitted", count);
        waited = true;
      }
      pause();
    }
  }

  private static void pause() throws AllocationRefusedException {
    try {
      Thread.sleep(RESERVATION_POLL.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AllocationRefusedException("interrupted while waiting for a reservation");
    }
  }

  /** What the call serves as the node is now; refused when no entry could serve it. */
  private Served served(Set<String> key, int count) throws AllocationRefusedException {
    Lease lease = locks.lease(node);
    Optional<Handout> repeated =
        repeated(key, lease == null ? NodeLockSet.EMPTY : locks.held(lease));
    if (repeated.isPresent()) {
      return new Served(repeated.get(), null, null);
    }
    // The kubelet admits only pods bound to its node: the call serves the first entry whose pod
    // is bound here. An entry's pod whose binding has not landed yet (the scheduler reserves,
    // then binds) is not the one being admitted and keeps its entry.
    NodeLock lock = null;
    Pod pod = null;
    for (NodeLock candidate :
        gate.holders(
            lease == null ? null : lease.getMetadata().getAnnotations(), count, clock.instant())) {
      Pod read =
          client.pods().inNamespace(candidate.podNamespace()).withName(candidate.podName()).get();
      if (lock == null || boundHere(read)) {
        lock = candidate;
        pod = read;
      }
      if (boundHere(read)) {
        break;
      }
    }
    return new Served(null, lock, pod);
  }

  private boolean boundHere(Pod pod) {
    return pod != null && node.equals(pod.getSpec().getNodeName());
  }

  /** The node's chips as the driver reports them now; Allocate checks allocations against them. */
  public void inventory(List<RegisteredChip> chips) {
    this.chips = List.copyOf(chips);
  }

  /** Forgets the answers given from the files of hand-out {@code nonce}; they are gone. */
  public void forget(String nonce) {
    answers.values().removeIf(answer -> answer.nonce().equals(nonce));
  }

  /**
   * The earlier answer when the kubelet asks again for the same devices of the same container. The
   * pod that got them is the one the hand-out's files name: the resolver names the real holder
   * there when it was an interchangeable pod; while that is not known yet (the node's locks hold
   * the hand-out's record without a holder) the call is verified anew, as the devices may since
   * have gone to another pod.
   */
  private Optional<Handout> repeated(Set<String> key, NodeLockSet held) {
    Answer answer = answers.get(key);
    if (answer == null
        || held.handout(answer.nonce()).filter(r -> r.heldBy() == null).isPresent()) {
      return Optional.empty();
    }
    NodeFiles.PodRecord user = files.user(answer.nonce()).orElse(null);
    Pod pod =
        user == null
            ? null
            : client.pods().inNamespace(user.namespace()).withName(user.name()).get();
    boolean alive =
        pod != null
            && user.uid().equals(pod.getMetadata().getUid())
            && pod.getMetadata().getDeletionTimestamp() == null
            && !PodPhases.finished(pod);
    if (!alive) {
      answers.remove(key);
      return Optional.empty();
    }
    // kubelet devicemanager/manager.go Allocate(): app containers reuse the devices of the init
    // containers before them, so while the pod still has containers to hand out, the same IDs
    // are the next container's, not a repeat.
    Map<String, String> annotations = pod.getMetadata().getAnnotations();
    if (annotations != null
        && BindPhase.ALLOCATING.wireName().equals(annotations.get(AnnotationKeys.BIND_PHASE))) {
      return Optional.empty();
    }
    LOG.info("repeated Allocate for {}/{}: same answer", user.namespace(), user.name());
    return Optional.of(answer.handout());
  }

  private Handout handOut(AllocationGate.Admission admission, String nonce)
      throws AllocationRefusedException {
    ContainerAllocation container = admission.container();
    try {
      NodeFiles.ShimFiles shim = null;
      if (container.vnpus().stream().anyMatch(Allocator::isSoftShare)) {
        shim =
            files.writeShimFiles(
                nonce, admission.pod(), container.name(), shimConfigs.write(shimConfig(admission)));
      }
      return handouts.of(container, shim);
    } catch (IOException | UncheckedIOException e) {
      throw new AllocationRefusedException(
          "cannot write the files of container "
              + container.name()
              + " of pod "
              + admission.pod().namespace()
              + "/"
              + admission.pod().name()
              + ": "
              + e.getMessage(),
          admission.pod());
    }
  }

  private ShimConfig shimConfig(AllocationGate.Admission admission) {
    List<ShimDevice> devices = admission.container().vnpus().stream().map(ShimDevice::of).toList();
    return new ShimConfig(
        admission.pod().uid(),
        admission.pod().namespace(),
        admission.pod().name(),
        admission.container().name(),
        ShimContract.CONTAINER_BOOKS,
        shimLogLevel,
        admission.allocation().offline(),
        devices);
  }

  private static boolean isSoftShare(VnpuAssignment vnpu) {
    return vnpu.mode() == SplitMode.SOFT && !vnpu.wholeCard();
  }

  /**
   * Counts the hand-out in the pod's entry of the node's locks, or removes the entry after its last
   * container, keeping a {@link HandoutRecord} when a pod of the same shape may have been the one
   * admitted. Done before the pod's annotations, under compare-and-set, so that an entry released
   * or expired meanwhile refuses the call instead of handing out what is no longer reserved.
   */
  private void claim(
      AllocationGate.Admission admission, NodeLock lock, Pod pod, Set<String> deviceIds)
      throws AllocationRefusedException {
    boolean claimed;
    if (admission.remaining().isEmpty()) {
      NodeFiles.PodRecord owner = admission.pod();
      HandoutRecord record =
          new HandoutRecord(
              lock.nonce(),
              lock.shape(),
              new PodRef(owner.uid(), owner.namespace(), owner.name()),
              pod.getMetadata().getAnnotations().get(AnnotationKeys.ALLOCATION),
              admission.container().name(),
              List.copyOf(deviceIds),
              clock.instant(),
              null);
      claimed = locks.lastHandedOut(node, lock.podUid(), record, clock.instant());
      lastHandedOut.run();
    } else {
      claimed = locks.handedOut(node, lock.podUid());
    }
    if (!claimed) {
      throw new AllocationRefusedException(
          "the entry of pod "
              + lock.podNamespace()
              + "/"
              + lock.podName()
              + " in the locks of node "
              + node
              + " went away (released or expired) before its container "
              + admission.container().name()
              + " could be handed out",
          admission.pod());
    }
  }

  private void record(AllocationGate.Admission admission) {
    NodeFiles.PodRecord pod = admission.pod();
    Map<String, String> changes = new HashMap<>();
    changes.put(
        AnnotationKeys.DEVICES_TO_ALLOCATE,
        codec.encodePending(new PendingContainers(admission.remaining())));
    if (admission.remaining().isEmpty()) {
      changes.put(AnnotationKeys.BIND_PHASE, BindPhase.SUCCESS.wireName());
    }
    patches.pod(pod.namespace(), pod.name(), changes);
    LOG.info(
        "handed out container {} of pod {}/{}; {} container(s) to go",
        admission.container().name(),
        pod.namespace(),
        pod.name(),
        admission.remaining().size());
  }

  private void markFailed(NodeFiles.PodRecord pod) {
    try {
      patches.pod(
          pod.namespace(),
          pod.name(),
          Map.of(AnnotationKeys.BIND_PHASE, BindPhase.FAILED.wireName()));
    } catch (RuntimeException e) {
      LOG.warn("cannot mark pod {}/{} failed: {}", pod.namespace(), pod.name(), e.toString());
    }
  }
}
