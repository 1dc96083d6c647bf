package org.vnpu.deviceplugin.allocate;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vnpu.api.ResourceNames;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.payload.HandoutRecord;
import org.vnpu.api.payload.NodeLock;
import org.vnpu.api.payload.PodRef;
import org.vnpu.handouts.NodeFiles;
import org.vnpu.kube.NodeLocks;
import org.vnpu.kubelet.PodResourcesEmulator;
import org.vnpu.testkit.MutableClock;

/**
 * The resolver's passes while a hand-out's holder cannot be known yet: a pass that found nothing to
 * record stands for the next ones, without a request to the API server, while nothing it read could
 * have changed and for at most {@link HandoutResolver#QUIET}; a pod the kubelet lists while it
 * admits it is not taken for admitted; a pod whose vNPU count does not parse stops no pass.
 */
@EnableKubernetesMockClient(crud = true)
class HandoutResolverTest {

  private static final String NODE = "n";

  KubernetesMockServer server;
  KubernetesClient client;

  @TempDir Path directory;

  private final MutableClock clock = new MutableClock(Instant.now());
  private final List<PodResourcesEmulator.ActivePod> active = new CopyOnWriteArrayList<>();
  private PodResourcesEmulator podResources;
  private HandoutResolver resolver;

  @BeforeEach
  void node() throws Exception {
    client
        .nodes()
        .resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build())
        .create();
    // Pods a and c of one shape are reserved; the kubelet handed a's reservation to a container
    // it has not reported yet, and c waits.
    NodeLocks locks = new NodeLocks(client, new PayloadCodec());
    Instant now = clock.instant();
    Map<String, String> uids = new HashMap<>();
    for (String pod : List.of("a", "c")) {
      String uid = createPod(pod);
      uids.put(pod, uid);
      locks.take(
          NODE,
          new NodeLock(
              uid,
              "default",
              pod,
              now,
              now.plusSeconds(60),
              "nonce-" + pod,
              "shape",
              List.of(1),
              0),
          now);
    }
    HandoutRecord record =
        new HandoutRecord(
            "nonce-a",
            "shape",
            new PodRef(uids.get("a"), "default", "a"),
            "allocation",
            "main",
            List.of("d-1"),
            now,
            null);
    assertThat(locks.lastHandedOut(NODE, uids.get("a"), record, now)).isTrue();
    Path socket = directory.resolve("pod-resources/kubelet.sock");
    podResources = new PodResourcesEmulator(socket, () -> active).start();
    resolver =
        new HandoutResolver(
            client,
            NODE,
            locks,
            new NodeFiles(directory.resolve("state")).prepare(),
            socket,
            clock);
    resolver.expect();
  }

  @AfterEach
  void stop() {
    resolver.close();
    podResources.close();
    // Before the mock shuts down: its Vert.x 5 server waits for each open WebSocket to close.
    client.close();
  }

  /** The requests the API server answered during {@code pass}. */
  private int requests(Runnable pass) {
    int before = server.getRequestCount();
    pass.run();
    return server.getRequestCount() - before;
  }

  @Test
  void aQuietPassStandsForTheNextOnesUntilTheKubeletAnswersOtherwiseOrItIsOld() {
    assertThat(requests(resolver::resolve))
        .as("the first pass reads the node and its pods")
        .isPositive();

    assertThat(requests(resolver::resolve)).as("nothing it read could have changed").isZero();
    clock.advance(HandoutResolver.QUIET.minus(Duration.ofMillis(1)));
    assertThat(requests(resolver::resolve)).isZero();

    active.add(
        new PodResourcesEmulator.ActivePod(
            "default",
            "b",
            List.of("main"),
            Map.of("main", Map.of(ResourceNames.VNPU_NUMBER, List.of("d-2")))));
    assertThat(requests(resolver::resolve)).as("the kubelet answers otherwise").isPositive();

    clock.advance(HandoutResolver.QUIET);
    assertThat(requests(resolver::resolve)).as("the quiet pass is too old").isPositive();
  }

  @Test
  void aPodListedWhileItsContainersAreHandedOutKeepsItsEntry() throws Exception {
    // Two containers of two vNPUs each: no vNPU count in common with a and c, so it may stand
    // beside them.
    String uid = createPod("p", vnpuContainer("first"), vnpuContainer("second"));
    NodeLocks locks = new NodeLocks(client, new PayloadCodec());
    Instant now = clock.instant();
    locks.take(
        NODE,
        new NodeLock(
            uid, "default", "p", now, now.plusSeconds(60), "nonce-p", "pair", List.of(2), 0),
        now);
    assertThat(locks.handedOut(NODE, uid)).isTrue();
    // The kubelet lists the pod it admits with the devices of the containers handed out so far
    // (pkg/kubelet/kubelet.go HandlePodAdditions adds it to the pod manager before admitting it).
    active.add(
        new PodResourcesEmulator.ActivePod(
            "default",
            "p",
            List.of("first", "second"),
            Map.of("first", Map.of(ResourceNames.VNPU_NUMBER, List.of("d-5", "d-6")))));

    resolver.resolve();

    assertThat(locks.current(NODE).of(uid))
        .as("the entry the second container's Allocate claims")
        .isPresent();
  }

  @Test
  void aPodWhoseVnpuCountDoesNotParseSpoilsNoPass() {
    createPod("x", vnpuContainer("main", "lots"));
    active.add(
        new PodResourcesEmulator.ActivePod(
            "default",
            "x",
            List.of("main"),
            Map.of("main", Map.of(ResourceNames.VNPU_NUMBER, List.of("d-7")))));
    // a runs on its own reservation: the kubelet lists it with the hand-out's devices.
    active.add(
        new PodResourcesEmulator.ActivePod(
            "default",
            "a",
            List.of("main"),
            Map.of("main", Map.of(ResourceNames.VNPU_NUMBER, List.of("d-1")))));

    resolver.resolve();

    assertThat(new NodeLocks(client, new PayloadCodec()).current(NODE).handout("nonce-a"))
        .as("a's record settled beside a pod the API server should have refused")
        .isEmpty();
  }

  @Test
  void aContainerOfTwoVnpusIsKnownByItsDevicesTheKubeletListsOneByOne() throws Exception {
    // The real kubelet lists each device in a ContainerDevices of its own (seen on the real node,
    // docs/sandbox.md); the emulator now does too.
    // Two pods of one shape are reserved, so m's hand-out is recorded: it may have gone to n.
    NodeLocks locks = new NodeLocks(client, new PayloadCodec());
    Instant now = clock.instant();
    Map<String, String> uids = new HashMap<>();
    for (String pod : List.of("m", "n")) {
      uids.put(pod, createPod(pod, vnpuContainer("main")));
      locks.take(
          NODE,
          new NodeLock(
              uids.get(pod),
              "default",
              pod,
              now,
              now.plusSeconds(60),
              "nonce-" + pod,
              "pair",
              List.of(2),
              0),
          now);
    }
    String uid = uids.get("m");
    HandoutRecord record =
        new HandoutRecord(
            "nonce-m",
            "pair",
            new PodRef(uid, "default", "m"),
            "allocation",
            "main",
            List.of("d-3", "d-4"),
            now,
            null);
    assertThat(locks.lastHandedOut(NODE, uid, record, now)).isTrue();
    active.add(
        new PodResourcesEmulator.ActivePod(
            "default",
            "m",
            List.of("main"),
            Map.of("main", Map.of(ResourceNames.VNPU_NUMBER, List.of("d-4", "d-3")))));
    assertThat(locks.current(NODE).handout("nonce-m")).isPresent();

    resolver.expect();
    resolver.resolve();

    assertThat(locks.current(NODE).handout("nonce-m"))
        .as("m's record settled: the kubelet holds both its devices for m's container")
        .isEmpty();
  }

  /** Creates pod {@code name} on the node; returns its UID. */
  private String createPod(String name, Container... containers) {
    return client
        .pods()
        .inNamespace("default")
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace("default")
                .endMetadata()
                .withNewSpec()
                .withNodeName(NODE)
                .withContainers(containers)
                .endSpec()
                .build())
        .create()
        .getMetadata()
        .getUid();
  }

  /** A container asking for two vNPUs. */
  private static Container vnpuContainer(String name) {
    return vnpuContainer(name, "2");
  }

  private static Container vnpuContainer(String name, String count) {
    return new ContainerBuilder()
        .withName(name)
        .withNewResources()
        .addToLimits(ResourceNames.VNPU_NUMBER, new Quantity(count))
        .endResources()
        .build();
  }
}
