package org.vnpu.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.payload.HandoutRecord;
import org.vnpu.api.payload.NodeLock;
import org.vnpu.api.payload.NodeLockSet;
import org.vnpu.api.payload.PodRef;

@EnableKubernetesMockClient(crud = true)
class NodeLocksTest {

  private static final Instant NOW = Instant.parse("2026-12-01T10:00:00Z");

  KubernetesClient client;
  KubernetesMockServer server;
  private final PayloadCodec codec = new PayloadCodec();
  private NodeLocks locks;

  @BeforeEach
  void node() {
    client
        .nodes()
        .resource(new NodeBuilder().withNewMetadata().withName("n1").endMetadata().build())
        .create();
    locks = new NodeLocks(client, codec);
  }

  private static NodeLock lock(String uid, String name, Instant until, int count) {
    return new NodeLock(
        uid,
        "ns",
        name,
        until.minusSeconds(60),
        until,
        "nonce-" + uid,
        "s-" + uid,
        List.of(count),
        0);
  }

  private static NodeLock lock(String uid, String name, Instant until) {
    return lock(uid, name, until, 1);
  }

  private List<NodeLock> held() {
    Lease lease = lease();
    return lease == null ? List.of() : locks.held(lease).holders();
  }

  private Lease lease() {
    return client.resources(Lease.class).inNamespace(NodeLocks.NAMESPACE).withName("n1").get();
  }

  private NodeLock current() {
    return held().isEmpty() ? null : held().get(held().size() - 1);
  }

  @Test
  void anotherPodsLockStandsUntilItExpiresThenItIsReplaced() throws Exception {
    NodeLock first = lock("uid-a", "a", NOW.plusSeconds(300));
    locks.take("n1", first, NOW);
    locks.take("n1", first, NOW); // the same pod again: still its lock

    assertThatThrownBy(() -> locks.take("n1", lock("uid-b", "b", NOW.plusSeconds(300)), NOW))
        .isInstanceOfSatisfying(
            NodeLocks.RefusedException.class, e -> assertThat(e.heldByAnother()).isTrue())
        .hasMessage("node n1 is locked by pod ns/a until " + NOW.plusSeconds(300));

    NodeLock second = lock("uid-b", "b", NOW.plusSeconds(900));
    locks.take("n1", second, NOW.plusSeconds(301));
    assertThat(current()).isEqualTo(second);
  }

  @Test
  void entriesTakenOnANodeAtOnceGoTogetherWithoutConflicts() throws Exception {
    int pods = 16;
    int before = server.getRequestCount();
    assertThat(takeAtOnce(pods, i -> entry(i, "s"))).isEmpty();

    // one read, then writes on the node as the last one wrote it (no compare-and-set failed and
    // was tried again), fewer than the entries: those that came while one was written went in the
    // next
    assertThat(server.getRequestCount() - before).isLessThan(pods + 1);
    assertThat(held()).hasSize(pods);
  }

  @Test
  void eachEntryOfAGroupIsDecidedAsIfTakenInTurn() throws Exception {
    int pods = 16;
    Map<Integer, NodeLocks.RefusedException> refused =
        takeAtOnce(pods, i -> entry(i, i % 2 == 0 ? "even" : "odd"));

    // entries of one shape share the node; the other shape's are refused while they stand
    Set<String> shapes = new HashSet<>();
    held().forEach(entry -> shapes.add(entry.shape()));
    assertThat(shapes).hasSize(1);
    assertThat(held().size() + refused.size()).isEqualTo(pods);
    assertThat(refused)
        .allSatisfy(
            (i, e) -> {
              assertThat(shapes).doesNotContain(i % 2 == 0 ? "even" : "odd");
              assertThat(e.heldByAnother()).isTrue();
            });
  }

  /** Takes {@code pods} entries on n1 from as many threads at once; the refused ones, by index. */
  private Map<Integer, NodeLocks.RefusedException> takeAtOnce(int pods, IntFunction<NodeLock> entry)
      throws Exception {
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService threads = Executors.newFixedThreadPool(pods);
    Map<Integer, NodeLocks.RefusedException> refused = new ConcurrentHashMap<>();
    List<Future<?>> takes = new ArrayList<>();
    for (int i = 0; i < pods; i++) {
      int pod = i;
      takes.add(
          threads.submit(
              () -> {
                start.await();
                try {
                  locks.take("n1", entry.apply(pod), NOW);
                } catch (NodeLocks.RefusedException e) {
                  refused.put(pod, e);
                }
                return null;
              }));
    }
    start.countDown();
    for (Future<?> take : takes) {
      take.get(30, TimeUnit.SECONDS);
    }
    threads.shutdown();
    return refused;
  }

  private static NodeLock entry(int i, String shape) {
    return new NodeLock(
        "uid-" + i, "ns", "p" + i, NOW, NOW.plusSeconds(300), "n-" + i, shape, List.of(1), 0);
  }

  @Test
  void aLockSeenOnTheNodeAsLastWrittenIsCheckedOnAFreshReadBeforeItRefuses() throws Exception {
    NodeLocks other = new NodeLocks(client, codec);
    locks.take("n1", lock("uid-a", "a", NOW.plusSeconds(300)), NOW);
    other.release("n1", "uid-a");
    other.take("n1", lock("uid-b", "b", NOW.plusSeconds(300)), NOW);

    // this component last saw a's entry; the refusal names the pod that holds the node now
    assertThatThrownBy(() -> locks.take("n1", lock("uid-c", "c", NOW.plusSeconds(300)), NOW))
        .isInstanceOf(NodeLocks.RefusedException.class)
        .hasMessageContaining("locked by pod ns/b");
  }

  @Test
  void aNodeSeenSinceTheLastWriteIsWhereTheNextLockStartsWithoutARead() throws Exception {
    NodeLocks other = new NodeLocks(client, codec);
    locks.take("n1", lock("uid-a", "a", NOW.plusSeconds(300)), NOW);
    other.release("n1", "uid-a"); // the device plugin admits a
    locks.seen(lease()); // a watch delivers the release

    int before = server.getRequestCount();
    locks.take("n1", lock("uid-b", "b", NOW.plusSeconds(300)), NOW);

    assertThat(server.getRequestCount() - before).as("the write alone").isEqualTo(1);
    assertThat(held()).extracting(NodeLock::podUid).containsExactly("uid-b");
  }

  @Test
  void aNodeSeenOlderThanTheLastWriteIsIgnored() throws Exception {
    locks.take("n1", sharing("uid-z"), NOW);
    locks.release("n1", "uid-z");
    Lease before = lease();
    locks.take("n1", sharing("uid-a"), NOW);
    locks.seen(before); // a watch that lags behind this component's own write

    int requests = server.getRequestCount();
    locks.take("n1", sharing("uid-b"), NOW);

    assertThat(server.getRequestCount() - requests)
        .as("written on the node as last written, not refused and read again")
        .isEqualTo(1);
    assertThat(held()).extracting(NodeLock::podUid).containsExactly("uid-a", "uid-b");
  }

  @Test
  void theEntriesLiveOnALeaseOwnedByTheNodeAndTheNodeIsNeverWritten() throws Exception {
    Node node = client.nodes().withName("n1").get();
    locks.take("n1", sharing("uid-a"), NOW);
    locks.handedOut("n1", "uid-a");
    locks.release("n1", "uid-a");

    Lease lease = lease();
    assertThat(lease.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(
            owner -> {
              assertThat(owner.getKind()).isEqualTo("Node");
              assertThat(owner.getName()).isEqualTo("n1");
              assertThat(owner.getUid()).isEqualTo(node.getMetadata().getUid());
            });
    assertThat(client.nodes().withName("n1").get().getMetadata().getResourceVersion())
        .isEqualTo(node.getMetadata().getResourceVersion());
  }

  @Test
  void aLeaseAnotherComponentCreatedFirstIsReadAndTheEntryTaken() throws Exception {
    // Another replica creates the node's Lease between this one's read and its create: the API
    // server refuses the create with a conflict (AlreadyExists), and the take decides again.
    String leases = "/apis/coordination.k8s.io/v1/namespaces/" + NodeLocks.NAMESPACE + "/leases";
    server.expect().post().withPath(leases).andReturn(409, conflict()).once();

    locks.take("n1", sharing("uid-a"), NOW);

    assertThat(held()).extracting(NodeLock::podUid).containsExactly("uid-a");
    int creates = 0;
    for (RecordedRequest request = server.takeRequest(1, TimeUnit.SECONDS);
        request != null;
        request = server.takeRequest(1, TimeUnit.SECONDS)) {
      creates += request.getMethod().equals("POST") && request.getPath().equals(leases) ? 1 : 0;
    }
    assertThat(creates).as("the refused create, then the one after the read").isEqualTo(2);
  }

  private static Status conflict() {
    return new StatusBuilder()
        .withStatus("Failure")
        .withReason("AlreadyExists")
        .withCode(409)
        .withMessage("leases \"n1\" already exists")
        .build();
  }

  @Test
  void aDeletedNodeIsForgottenAndItsNextLockReadsItAgain() throws Exception {
    locks.take("n1", sharing("uid-z"), NOW);
    locks.forget("n1");

    int requests = server.getRequestCount();
    locks.take("n1", sharing("uid-a"), NOW);

    assertThat(server.getRequestCount() - requests).as("a read, then the write").isEqualTo(2);
  }

  private static NodeLock sharing(String uid) {
    return new NodeLock(uid, "ns", uid, NOW, NOW.plusSeconds(300), "n-" + uid, "s", List.of(1), 0);
  }

  @Test
  void anEntryWrittenByAnotherComponentSinceIsFoundAndReleased() throws Exception {
    NodeLocks other = new NodeLocks(client, codec);
    locks.take("n1", lock("uid-a", "a", NOW.plusSeconds(300)), NOW);
    other.release("n1", "uid-a");
    other.take("n1", lock("uid-x", "x", NOW.plusSeconds(300)), NOW);

    assertThat(locks.release("n1", "uid-x")).isTrue();
    assertThat(held()).isEmpty();
  }

  @Test
  void podsAskingForOtherVnpuCountsJoinAndEachEntryAdvancesAndLeavesOnItsOwn() throws Exception {
    NodeLock one = lock("uid-a", "a", NOW.plusSeconds(300), 1);
    NodeLock two = lock("uid-b", "b", NOW.plusSeconds(300), 2);
    locks.take("n1", one, NOW);
    locks.take("n1", two, NOW);
    assertThat(held()).containsExactly(one, two);

    assertThat(locks.handedOut("n1", "uid-b")).isTrue();
    assertThat(held()).containsExactly(one, two.afterHandout());
    assertThat(locks.release("n1", "uid-a")).isTrue();
    assertThat(held()).containsExactly(two.afterHandout());
    assertThat(locks.handedOut("n1", "uid-a")).isFalse();
  }

  @Test
  void aHandoutOutlivesTheLastEntryUntilItIsSettled() throws Exception {
    NodeLock a = sameShape("uid-a", "a");
    NodeLock b = sameShape("uid-b", "b");
    locks.take("n1", a, NOW);
    locks.take("n1", b, NOW);

    HandoutRecord record =
        new HandoutRecord(
            "nonce-uid-a",
            "s",
            new PodRef("uid-a", "ns", "a"),
            "{}",
            "main",
            List.of("d"),
            NOW,
            null);
    assertThat(locks.lastHandedOut("n1", "uid-a", record, NOW)).isTrue();
    assertThat(locks.release("n1", "uid-b")).isTrue();
    NodeLockSet held = locks.held(lease());
    assertThat(held.holders()).isEmpty();
    assertThat(held.handouts()).containsExactly(record);

    PodRef holder = new PodRef("uid-b", "ns", "b");
    assertThat(locks.resolved("n1", held, Set.of(), Map.of("nonce-uid-a", holder), Set.of()))
        .isTrue();
    assertThat(locks.held(lease()).handouts()).containsExactly(record.heldBy(holder));
    assertThat(locks.settled("n1", "nonce-uid-a")).isTrue();
    assertThat(lease().getMetadata().getAnnotations()).isNullOrEmpty();
  }

  @Test
  void whatWasLearntFromLocksThatChangedSinceIsNotWritten() throws Exception {
    // The device plugin decides that pod a's entry is surplus from the locks as it read them; an
    // Allocate then serves a's entry to another pod's call. Writing the decision on the changed
    // locks would take the entry the other pod's own reservation now needs.
    locks.take("n1", sameShape("uid-a", "a"), NOW);
    locks.take("n1", sameShape("uid-b", "b"), NOW);
    NodeLockSet basis = locks.held(lease());
    locks.take("n1", sameShape("uid-c", "c"), NOW);

    assertThat(locks.resolved("n1", basis, Set.of(), Map.of(), Set.of("uid-a"))).isFalse();
    assertThat(held()).extracting(NodeLock::podUid).containsExactly("uid-a", "uid-b", "uid-c");

    NodeLockSet now = locks.held(lease());
    assertThat(locks.resolved("n1", now, Set.of(), Map.of(), Set.of("uid-a"))).isTrue();
    assertThat(held()).extracting(NodeLock::podUid).containsExactly("uid-b", "uid-c");
  }

  private static NodeLock sameShape(String uid, String name) {
    return new NodeLock(
        uid, "ns", name, NOW, NOW.plusSeconds(300), "nonce-" + uid, "s", List.of(1), 0);
  }

  @Test
  void aReleaseIsNotRefusedByOtherEntriesTakenSinceItsCopyWasRead() throws Exception {
    // The device plugin's copy of the Lease is older than the scheduler's latest take: a release
    // tests its own entry alone, so it is written at once, and the take stays.
    locks.take("n1", sharing("uid-a"), NOW);
    NodeLocks plugin = new NodeLocks(client, codec);
    plugin.seen(lease());
    locks.take("n1", sharing("uid-b"), NOW);

    int requests = server.getRequestCount();
    assertThat(plugin.release("n1", "uid-a")).isTrue();
    assertThat(server.getRequestCount() - requests).as("the write alone").isEqualTo(1);
    assertThat(held()).extracting(NodeLock::podUid).containsExactly("uid-b");
  }

  @Test
  void aReleaseOfAnEntryThatChangedSinceItsCopyIsDecidedAgain() throws Exception {
    locks.take("n1", sharing("uid-a"), NOW);
    try (KubernetesClient quick = QuickTimeouts.of(client)) {
      NodeLocks scheduler = new NodeLocks(quick, codec);
      scheduler.seen(lease());
      assertThat(locks.handedOut("n1", "uid-a")).isTrue();
      assertThat(locks.held(lease()).of("uid-a").orElseThrow().handedOut()).isEqualTo(1);

      assertThat(scheduler.release("n1", "uid-a")).isTrue();
      assertThat(held()).isEmpty();
      assertThat(scheduler.release("n1", "uid-a")).as("released already").isFalse();
    }
  }

  @Test
  void aMalformedLockIsReplacedAndAMissingNodeRefuses() throws Exception {
    locks.take("n1", sharing("uid-z"), NOW);
    new AnnotationPatches(client)
        .ifUnchanged(lease(), Map.of(AnnotationKeys.nodeLock("uid-z"), "not a lock"));
    NodeLock mine = lock("uid-a", "a", NOW.plusSeconds(300));
    locks.take("n1", mine, NOW);
    assertThat(current()).isEqualTo(mine);

    assertThatThrownBy(() -> locks.take("gone", mine, NOW))
        .isInstanceOfSatisfying(
            NodeLocks.RefusedException.class, e -> assertThat(e.heldByAnother()).isFalse())
        .hasMessage("node gone does not exist");
  }

  @Test
  void releaseRemovesOnlyTheNamedPodsLockComparedByUidNotByText() throws Exception {
    // A pod whose name is another pod's UID: its lock's text contains that UID.
    NodeLock other = lock("uid-b", "uid-a", NOW.plusSeconds(300));
    locks.take("n1", other, NOW);

    assertThat(locks.release("n1", "uid-a")).isFalse();
    assertThat(current()).isEqualTo(other);
    assertThat(locks.release("n1", "uid-b")).isTrue();
    assertThat(current()).isNull();
    assertThat(locks.release("n1", "uid-b")).isFalse();
    assertThat(locks.release("gone", "uid-b")).isFalse();
  }
}
