package org.vnpu.api.codec;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.vnpu.api.AiCorePolicy;
import org.vnpu.api.HandshakeState;
import org.vnpu.api.SplitMode;
import org.vnpu.api.payload.ContainerAllocation;
import org.vnpu.api.payload.NodeHandshake;
import org.vnpu.api.payload.NodeLock;
import org.vnpu.api.payload.NodeLockSet;
import org.vnpu.api.payload.NodeRegistration;
import org.vnpu.api.payload.OfflineWork;
import org.vnpu.api.payload.PendingContainers;
import org.vnpu.api.payload.PodAllocation;
import org.vnpu.api.payload.RegisteredChip;
import org.vnpu.api.payload.SignedAllocation;
import org.vnpu.api.payload.VnpuAssignment;

class PayloadCodecProperties {

  private final PayloadCodec codec = new PayloadCodec();

  @Property
  void registrationRoundTrips(@ForAll("registrations") NodeRegistration registration) {
    assertThat(codec.decodeRegistration(codec.encodeRegistration(registration)))
        .isEqualTo(registration);
  }

  @Property
  void handshakeRoundTrips(@ForAll HandshakeState state, @ForAll("instants") Instant at) {
    NodeHandshake handshake = new NodeHandshake(state, at);
    assertThat(codec.decodeHandshake(codec.encodeHandshake(handshake))).isEqualTo(handshake);
  }

  @Property
  void lockRoundTrips(@ForAll("names") String uid, @ForAll("instants") Instant at) {
    NodeLockSet lock =
        new NodeLockSet(
            List.of(
                new NodeLock(
                    uid,
                    "ns-" + uid,
                    "pod-" + uid,
                    at,
                    at.plusMillis(1),
                    "nonce-" + uid,
                    "shape-" + uid,
                    List.of(1, 2),
                    1)),
            List.of());
    assertThat(codec.locksOf(codec.encodeLocks(lock))).isEqualTo(lock);
  }

  @Property
  void pendingContainersRoundTrip(@ForAll("nameLists") List<String> names) {
    PendingContainers pending = new PendingContainers(names);
    assertThat(codec.decodePending(codec.encodePending(pending))).isEqualTo(pending);
  }

  @Property
  void allocationRoundTrips(
      @ForAll("allocations") PodAllocation allocation, @ForAll("names") String signature) {
    SignedAllocation signed =
        new SignedAllocation(allocation, "nonce", "ed25519-0123456789abcdef", signature);
    assertThat(codec.decodeAllocation(codec.encodeAllocation(signed))).isEqualTo(signed);
  }

  Arbitrary<String> containerNames() {
    return Arbitraries.strings()
        .withChars("abcdefghijklmnopqrstuvwxyz0123456789")
        .ofMinLength(1)
        .ofMaxLength(12)
        .flatMap(head -> Arbitraries.of("", "-a", "-0", "x-y1").map(tail -> head + tail));
  }

  @Provide
  Arbitrary<String> names() {
    return Arbitraries.strings()
        .withChars("abcdef0123456789-\"\\é")
        .ofMinLength(1)
        .ofMaxLength(12)
        .filter(s -> !s.isBlank());
  }

  @Provide
  Arbitrary<List<String>> nameLists() {
    return names().list().uniqueElements().ofMaxSize(5);
  }

  @Provide
  Arbitrary<Instant> instants() {
    return Arbitraries.longs().between(0, 4_102_444_800_000L).map(Instant::ofEpochMilli);
  }

  @Provide
  Arbitrary<NodeRegistration> registrations() {
    Arbitrary<List<RegisteredChip>> chips =
        Arbitraries.integers()
            .between(0, 16)
            .flatMap(
                n ->
                    Combinators.combine(
                            Arbitraries.longs().between(1, 1 << 20),
                            Arbitraries.integers().between(0, 64),
                            Arbitraries.integers().between(0, 16),
                            Arbitraries.of(true, false),
                            Arbitraries.integers().between(-1, 7),
                            Arbitraries.strings().alpha().ofMaxLength(6))
                        .as(
                            (mem, cores, cpus, healthy, numa, group) ->
                                chipsOf(n, mem, cores, cpus, healthy, numa, group)));
    return Combinators.combine(
            Arbitraries.of(SplitMode.class),
            Arbitraries.integers().between(1, NodeRegistration.MAX_SHARES_PER_CHIP),
            chips)
        .as(NodeRegistration::new);
  }

  private static List<RegisteredChip> chipsOf(
      int n, long mem, int cores, int cpus, boolean healthy, int numa, String group) {
    return java.util.stream.IntStream.range(0, n)
        .mapToObj(
            i ->
                new RegisteredChip(
                    i,
                    "die-" + i,
                    "910B3",
                    mem + i,
                    cores,
                    cpus,
                    healthy ^ (i % 2 == 0),
                    numa,
                    group))
        .toList();
  }

  @Provide
  Arbitrary<PodAllocation> allocations() {
    Arbitrary<VnpuAssignment> vnpu =
        Combinators.combine(
                Arbitraries.longs().between(1, 1 << 17),
                Arbitraries.integers().between(0, 99),
                Arbitraries.of(SplitMode.class),
                Arbitraries.of(true, false),
                Arbitraries.of(AiCorePolicy.class))
            .as(PayloadCodecProperties::assignment);
    // Container names are DNS-1123 labels (they name files on the node); other names are free.
    Arbitrary<ContainerAllocation> container =
        Combinators.combine(
                containerNames(),
                Arbitraries.of(true, false),
                vnpu.list().ofMinSize(1).ofMaxSize(4))
            .as((name, init, vnpus) -> new ContainerAllocation(name, init, onDistinctChips(vnpus)));
    Arbitrary<OfflineWork> offline =
        Arbitraries.integers()
            .between(0, OfflineWork.MAX_KERNELS_IN_FLIGHT)
            .map(OfflineWork::new)
            .injectNull(0.5);
    return Combinators.combine(
            names(),
            names(),
            container.list().ofMaxSize(4).uniqueElements(ContainerAllocation::name),
            offline)
        .as(PodAllocation::new);
  }

  private static VnpuAssignment assignment(
      long mem, int cores, SplitMode mode, boolean whole, AiCorePolicy policy) {
    boolean share = mode == SplitMode.SOFT && !whole;
    boolean templated = mode == SplitMode.HARD && !whole;
    return new VnpuAssignment(
        0,
        "die",
        "310P3",
        mem,
        whole ? 100 : cores,
        mode,
        whole,
        share ? policy : null,
        templated ? "vir04_3c" : null);
  }

  private static List<VnpuAssignment> onDistinctChips(List<VnpuAssignment> vnpus) {
    return java.util.stream.IntStream.range(0, vnpus.size())
        .mapToObj(
            i -> {
              VnpuAssignment v = vnpus.get(i);
              return new VnpuAssignment(
                  i,
                  "die-" + i,
                  v.chipType(),
                  v.memoryMiB(),
                  v.cores(),
                  v.mode(),
                  v.wholeCard(),
                  v.policy(),
                  v.template());
            })
        .toList();
  }
}
