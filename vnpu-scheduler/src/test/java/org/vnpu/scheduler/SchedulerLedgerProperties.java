package org.vnpu.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.HandshakeState;
import org.vnpu.api.SplitMode;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.payload.ContainerAllocation;
import org.vnpu.api.payload.NodeHandshake;
import org.vnpu.api.payload.NodeRegistration;
import org.vnpu.api.payload.PodAllocation;
import org.vnpu.api.payload.RegisteredChip;
import org.vnpu.api.payload.VnpuAssignment;
import org.vnpu.api.signing.AllocationSigner;
import org.vnpu.api.signing.AllocationVerifier;
import org.vnpu.api.signing.SigningKey;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.core.ledger.AllocationPlan;

/**
 * Whatever order the informers deliver nodes, re-registrations and pods in — pods before their
 * nodes, allocations that no longer fit, deletions — the scheduler's ledger never charges a chip
 * beyond its memory, its AI Cores or its share slots.
 */
class SchedulerLedgerProperties {

  private static final int MAX_SHARES = 4;
  private static final long CHIP_MIB = 65_536;
  private static final PayloadCodec CODEC = new PayloadCodec();
  private static final SigningKey KEY = SigningKey.generate();
  private static final AllocationSigner SIGNER = new AllocationSigner(KEY, CODEC);

  /** One informer event. */
  sealed interface Event permits NodeUp, PodUp, PodGone {}

  record NodeUp(int node, int chips) implements Event {}

  record PodUp(int pod, int node, int chip, int cores, long memoryMiB) implements Event {}

  record PodGone(int pod) implements Event {}

  @Property(tries = 200)
  void noEventOrderOverCommitsAChip(@ForAll("events") List<Event> events) {
    Scheduler scheduler =
        new Scheduler(
            null,
            ChipCatalog.builtIn(),
            SIGNER,
            AllocationVerifier.of(KEY, CODEC),
            SchedulerSettings.defaults(),
            Clock.systemUTC());
    for (Event event : events) {
      if (event instanceof NodeUp up) {
        scheduler.nodeChanged(node(up));
      } else if (event instanceof PodUp up) {
        scheduler.podChanged(pod(up));
      } else {
        scheduler.podRemoved("uid-" + ((PodGone) event).pod());
      }
      assertWithinCapacity(scheduler.placements().values());
    }
  }

  private static void assertWithinCapacity(Iterable<AllocationPlan> plans) {
    Map<String, long[]> perChip = new HashMap<>();
    for (AllocationPlan plan : plans) {
      for (ContainerAllocation container : plan.allocation().containers()) {
        for (VnpuAssignment vnpu : container.vnpus()) {
          long[] used = perChip.computeIfAbsent(vnpu.dieId(), die -> new long[3]);
          used[0] += vnpu.memoryMiB();
          used[1] += vnpu.cores();
          used[2]++;
        }
      }
    }
    perChip.forEach(
        (die, used) -> {
          assertThat(used[0]).as("memory on %s", die).isLessThanOrEqualTo(CHIP_MIB);
          assertThat(used[1]).as("cores on %s", die).isLessThanOrEqualTo(100);
          assertThat(used[2]).as("shares on %s", die).isLessThanOrEqualTo(MAX_SHARES);
        });
  }

  @Provide
  Arbitrary<List<Event>> events() {
    Arbitrary<Event> nodeUp =
        Combinators.combine(
                Arbitraries.integers().between(0, 2), Arbitraries.integers().between(1, 2))
            .as(NodeUp::new);
    Arbitrary<Event> podUp =
        Combinators.combine(
                Arbitraries.integers().between(0, 15),
                Arbitraries.integers().between(0, 2),
                Arbitraries.integers().between(0, 1),
                Arbitraries.integers().between(10, 70),
                Arbitraries.longs().between(4_096, 40_960))
            .as(PodUp::new);
    Arbitrary<Event> podGone = Arbitraries.integers().between(0, 15).map(PodGone::new);
    return Arbitraries.frequencyOf(
            net.jqwik.api.Tuple.of(2, nodeUp),
            net.jqwik.api.Tuple.of(6, podUp),
            net.jqwik.api.Tuple.of(2, podGone))
        .list()
        .ofMaxSize(40);
  }

  private static Node node(NodeUp up) {
    List<RegisteredChip> chips = new ArrayList<>();
    for (int i = 0; i < up.chips(); i++) {
      chips.add(new RegisteredChip(i, die(up.node(), i), "910B3", CHIP_MIB, 20, 7, true, -1, ""));
    }
    return new NodeBuilder()
        .withNewMetadata()
        .withName("node-" + up.node())
        .addToAnnotations(
            AnnotationKeys.NODE_REGISTER,
            CODEC.encodeRegistration(new NodeRegistration(SplitMode.SOFT, MAX_SHARES, chips)))
        .addToAnnotations(
            AnnotationKeys.NODE_HANDSHAKE,
            CODEC.encodeHandshake(new NodeHandshake(HandshakeState.REPORTED, Instant.now())))
        .endMetadata()
        .build();
  }

  private static Pod pod(PodUp up) {
    String uid = "uid-" + up.pod();
    PodAllocation allocation =
        ClusterFixture.share(
            uid,
            "node-" + up.node(),
            up.chip(),
            die(up.node(), up.chip()),
            up.memoryMiB(),
            up.cores(),
            null);
    return new PodBuilder()
        .withNewMetadata()
        .withName("pod-" + up.pod())
        .withNamespace("default")
        .withUid(uid)
        .addToAnnotations(
            AnnotationKeys.ALLOCATION, CODEC.encodeAllocation(SIGNER.sign(allocation, "nonce")))
        .endMetadata()
        .build();
  }

  private static String die(int node, int chip) {
    return "DIE-" + node + "-" + chip;
  }
}
