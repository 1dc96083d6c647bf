package org.vnpu.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

@EnableKubernetesMockClient(crud = true)
class AnnotationPatchesTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  KubernetesClient client;
  KubernetesMockServer server;

  @Test
  void settingAnnotationsIsOneRequestWithNoReadBeforeIt() {
    client
        .pods()
        .inNamespace("ns")
        .resource(new PodBuilder().withNewMetadata().withName("p").endMetadata().build())
        .create();
    int before = server.getRequestCount();

    new AnnotationPatches(client).pod("ns", "p", Map.of("key", "value"));

    assertThat(server.getRequestCount() - before).isEqualTo(1);
    assertThat(client.pods().inNamespace("ns").withName("p").get().getMetadata().getAnnotations())
        .containsEntry("key", "value");
  }

  @Test
  void setsAndRemovesNodeAnnotationsLeavingOthersAlone() {
    node("n1", Map.of("keep", "me", "drop", "me"));
    Map<String, String> changes = new HashMap<>();
    changes.put("drop", null);
    changes.put("new", "value");

    new AnnotationPatches(client).node("n1", changes);

    assertThat(client.nodes().withName("n1").get().getMetadata().getAnnotations())
        .containsExactlyInAnyOrderEntriesOf(Map.of("keep", "me", "new", "value"));
  }

  @Test
  void compareAndSetRefusesANodeChangedSinceItWasRead() {
    Node read =
        client
            .nodes()
            .resource(new NodeBuilder().withNewMetadata().withName("n2").endMetadata().build())
            .create();
    AnnotationPatches patches = new AnnotationPatches(client);
    patches.node("n2", Map.of("lock", "other pod"));

    assertThat(patches.ifUnchanged(read, Map.of("lock", "mine"))).isFalse();
    Node fresh = client.nodes().withName("n2").get();
    assertThat(patches.ifUnchanged(fresh, Map.of("lock", "mine"))).isTrue();
    assertThat(client.nodes().withName("n2").get().getMetadata().getAnnotations())
        .containsEntry("lock", "mine");
  }

  @Test
  void compareAndSetRemovesPodAnnotationsOnlyFromTheVersionRead() {
    Pod read =
        client
            .pods()
            .inNamespace("default")
            .resource(
                new PodBuilder()
                    .withNewMetadata()
                    .withName("p")
                    .addToAnnotations("reservation", "r1")
                    .addToAnnotations("keep", "me")
                    .endMetadata()
                    .build())
            .create();
    AnnotationPatches patches = new AnnotationPatches(client);
    Map<String, String> removal = new HashMap<>();
    removal.put("reservation", null);
    removal.put("absent", null);
    client
        .pods()
        .inNamespace("default")
        .withName("p")
        .edit(
            p -> {
              p.getMetadata().getLabels().put("bound", "meanwhile");
              return p;
            });

    assertThat(patches.ifUnchanged(read, removal)).isFalse();
    Pod fresh = client.pods().inNamespace("default").withName("p").get();
    assertThat(fresh.getMetadata().getAnnotations()).containsKey("reservation");
    assertThat(patches.ifUnchanged(fresh, removal)).isTrue();
    assertThat(
            client.pods().inNamespace("default").withName("p").get().getMetadata().getAnnotations())
        .containsExactlyEntriesOf(Map.of("keep", "me"));
  }

  /**
   * On the real API server a Lease whose last lock entry was released has no annotations at all; a
   * copy read before still has them. The change must be refused as a conflict (read again, decide
   * again), not fail as an invalid patch (a path that no longer exists): the real API server
   * answered 422 to the JSON patch that added the key under the annotations it had read.
   */
  @Test
  void compareAndSetOnACopyWhoseAnnotationsWereAllRemovedSinceIsAConflict() throws Exception {
    Node read = node("emptied", Map.of("lock", "other pod"));
    Node emptied = client.nodes().withName("emptied").get();
    emptied.getMetadata().setAnnotations(null);
    client.nodes().resource(emptied).update();
    AnnotationPatches patches = new AnnotationPatches(client);
    Map<String, String> removal = new HashMap<>();
    removal.put("lock", null);

    for (Map<String, String> change : List.of(Map.of("lock", "mine"), removal)) {
      assertThat(patches.ifUnchanged(read, change)).isFalse();
      // The mock compares versions before it patches; the real API server patches the object it
      // stores first (registry/rest/patch.go applyPatch), then compares: the patch must apply to
      // any stored object, so it names no path below the annotations, which may be gone.
      assertThat(
              JSON.readTree(AnnotationPatches.compareAndSet(read, change)).findValuesAsText("path"))
          .containsExactly("/metadata/resourceVersion", "/metadata/annotations");
    }
    assertThat(
            patches.ifUnchanged(client.nodes().withName("emptied").get(), Map.of("lock", "mine")))
        .isTrue();
  }

  @Test
  void aKeyScopedChangeLandsWhateverElseChangedAndIsRefusedWhenItsKeyDid() throws Exception {
    Node read = node("keys", Map.of("entry-a", "a1", "entry-b", "b1"));
    try (KubernetesClient quick = QuickTimeouts.of(client)) {
      AnnotationPatches patches = new AnnotationPatches(quick);
      patches.node("keys", Map.of("entry-b", "b2", "entry-c", "c1"));
      Map<String, String> removeA = new HashMap<>();
      removeA.put("entry-a", null);

      assertThat(patches.patchIfKeysUnchanged(read, Map.of("entry-a", "a1"), removeA)).isPresent();
      assertThat(client.nodes().withName("keys").get().getMetadata().getAnnotations())
          .containsExactlyInAnyOrderEntriesOf(Map.of("entry-b", "b2", "entry-c", "c1"));
      assertThat(
              patches.patchIfKeysUnchanged(read, Map.of("entry-b", "b1"), Map.of("entry-b", "b3")))
          .as("entry-b changed since it was read")
          .isEmpty();
      assertThat(patches.patchIfKeysUnchanged(read, Map.of("entry-a", "a1"), removeA))
          .as("entry-a is gone")
          .isEmpty();
      // The real API server answers a failed test with 422 (handlers/patch.go applyJSPatch).
      assertThat(
              JSON.readTree(AnnotationPatches.keysUnchanged(Map.of("entry-a", "a1"), removeA))
                  .findValuesAsText("op"))
          .containsExactly("test", "remove");
      Map<String, String> removeB = new HashMap<>();
      removeB.put("entry-b", null);
      assertThatThrownBy(() -> AnnotationPatches.keysUnchanged(Map.of("entry-a", "a1"), removeB))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("removes entry-b, which it does not test");
    }
  }

  @Test
  void compareAndSetAddsAnnotationsToAnObjectWithoutAny() {
    Node read =
        client
            .nodes()
            .resource(new NodeBuilder().withNewMetadata().withName("bare").endMetadata().build())
            .create();

    assertThat(new AnnotationPatches(client).ifUnchanged(read, Map.of("lock", "mine"))).isTrue();
    assertThat(client.nodes().withName("bare").get().getMetadata().getAnnotations())
        .containsExactlyEntriesOf(Map.of("lock", "mine"));
  }

  @Test
  void concurrentWritersOfDifferentKeysBothLand() throws InterruptedException {
    client
        .nodes()
        .resource(new NodeBuilder().withNewMetadata().withName("n3").endMetadata().build())
        .create();
    AnnotationPatches patches = new AnnotationPatches(client);
    Thread heartbeat =
        new Thread(
            () -> {
              for (int i = 0; i < 30; i++) {
                patches.node("n3", Map.of("heartbeat", Integer.toString(i)));
              }
            });
    heartbeat.start();
    for (int i = 0; i < 30; i++) {
      patches.node("n3", Map.of("lock", Integer.toString(i)));
    }
    heartbeat.join();

    assertThat(client.nodes().withName("n3").get().getMetadata().getAnnotations())
        .containsEntry("heartbeat", "29")
        .containsEntry("lock", "29");
  }

  private Node node(String name, Map<String, String> annotations) {
    return client
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .withAnnotations(new HashMap<>(annotations))
                .endMetadata()
                .build())
        .create();
  }
}
