package org.vnpu.kube;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.net.HttpURLConnection;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Changes annotations of nodes and pods without disturbing other writers. A {@code null} value
 * removes the key. Values are set with a JSON merge patch, which touches only the keys named and
 * never conflicts; keys are removed with JSON-patch {@code remove} operations for the keys present,
 * because fabric8's CRUD mock ignores the {@code null} of a merge patch (a real API server does
 * not). Compare-and-set changes go through {@link #ifUnchanged}.
 */
public final class AnnotationPatches {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int REMOVE_ATTEMPTS = 3;

  private final KubernetesClient client;

  public AnnotationPatches(KubernetesClient client) {
    this.client = client;
  }

  /** Sets (or, for null values, removes) annotations of the node {@code name}. */
  public void node(String name, Map<String, String> changes) {
    apply(new NodeBuilder().withNewMetadata().withName(name).endMetadata().build(), changes);
  }

  /** Sets (or, for null values, removes) annotations of a pod. */
  public void pod(String namespace, String name, Map<String, String> changes) {
    apply(
        new PodBuilder()
            .withNewMetadata()
            .withNamespace(namespace)
            .withName(name)
            .endMetadata()
            .build(),
        changes);
  }

  /**
   * Changes the annotations of {@code object} (a node, a pod, a Lease) only if nobody changed it
   * since it was read. The JSON patch sets the resource version read and the whole annotations as
   * read with the changes made; the API server applies it to the object it stores, then compares
   * the patched object's version with the stored one and refuses a stale one with a conflict (the
   * optimistic lock of {@code staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go
   * Update}, which patches go through too). Replacing the annotations whole, rather than adding or
   * removing one key, keeps the patch applicable to whatever is stored: a key's path under
   * annotations that are gone since makes the patch invalid (422), not a conflict. A patch, not an
   * update: the Roles need no update verb.
   *
   * @return false when the object changed meanwhile; read it again and decide again
   */
  public <T extends HasMetadata> boolean ifUnchanged(T object, Map<String, String> changes) {
    return patchIfUnchanged(object, changes).isPresent();
  }

  /**
   * {@link #ifUnchanged}, answering the object as the API server stored it after the change (so a
   * caller can change it again without reading it first); empty when it changed meanwhile.
   */
  public <T extends HasMetadata> Optional<T> patchIfUnchanged(
      T object, Map<String, String> changes) {
    String version = object.getMetadata().getResourceVersion();
    if (version == null) {
      throw new IllegalArgumentException(
          object.getKind() + " " + object.getMetadata().getName() + " was not read: no version");
    }
    try {
      return Optional.of(
          client
              .resource(object)
              .patch(PatchContext.of(PatchType.JSON), compareAndSet(object, changes)));
    } catch (KubernetesClientException e) {
      if (e.getCode() == HttpURLConnection.HTTP_CONFLICT) {
        return Optional.empty();
      }
      throw e;
    }
  }

  /**
   * The JSON patch of {@link #patchIfUnchanged}: the version {@code read} was read at, and its
   * annotations with {@code changes} made.
   */
  static String compareAndSet(HasMetadata read, Map<String, String> changes) {
    Map<String, String> annotations = new TreeMap<>();
    if (read.getMetadata().getAnnotations() != null) {
      annotations.putAll(read.getMetadata().getAnnotations());
    }
    changes.forEach(
        (key, value) -> {
          if (value == null) {
            annotations.remove(key);
          } else {
            annotations.put(key, value);
          }
        });
    ArrayNode operations = JSON.createArrayNode();
    operations
        .addObject()
        .put("op", "replace")
        .put("path", "/metadata/resourceVersion")
        .put("value", read.getMetadata().getResourceVersion());
    operations
        .addObject()
        .put("op", "add")
        .put("path", "/metadata/annotations")
        .set("value", JSON.valueToTree(annotations));
    return operations.toString();
  }

  /**
   * Changes the annotations of {@code object} only while the keys {@code read} still hold the
   * values they were read with, whatever else changed: a JSON patch that tests each of them, then
   * makes {@code changes} (a null removes a key, which must be one of those tested). Other writers'
   * changes to other keys neither refuse it nor are lost. A failed test makes the real API server
   * answer 422; another answer (the mock's) is taken for a failed test, too, only when a re-read
   * shows a tested key changed.
   *
   * @return the object as stored after the change; empty when a tested key changed or the object is
   *     gone
   */
  public <T extends HasMetadata> Optional<T> patchIfKeysUnchanged(
      T object, Map<String, String> read, Map<String, String> changes) {
    if (read.isEmpty()) {
      throw new IllegalArgumentException("a key-scoped change tests at least one key");
    }
    Resource<T> resource = client.resource(object);
    try {
      return Optional.of(
          resource.patch(PatchContext.of(PatchType.JSON), keysUnchanged(read, changes)));
    } catch (KubernetesClientException e) {
      T current = resource.get();
      Map<String, String> now =
          current == null || current.getMetadata().getAnnotations() == null
              ? Map.of()
              : current.getMetadata().getAnnotations();
      boolean tested =
          read.entrySet().stream().anyMatch(key -> !key.getValue().equals(now.get(key.getKey())));
      if (current == null || tested) {
        return Optional.empty();
      }
      throw e;
    }
  }

  /**
   * The JSON patch of {@link #patchIfKeysUnchanged}: a {@code test} of each key {@code read}, then
   * {@code changes}.
   */
  public static String keysUnchanged(Map<String, String> read, Map<String, String> changes) {
    ArrayNode operations = JSON.createArrayNode();
    new TreeMap<>(read)
        .forEach(
            (key, value) ->
                operations
                    .addObject()
                    .put("op", "test")
                    .put("path", path(key))
                    .put("value", value));
    new TreeMap<>(changes)
        .forEach(
            (key, value) -> {
              if (value != null) {
                operations.addObject().put("op", "add").put("path", path(key)).put("value", value);
              } else if (read.containsKey(key)) {
                operations.addObject().put("op", "remove").put("path", path(key));
              } else {
                throw new IllegalArgumentException("removes " + key + ", which it does not test");
              }
            });
    return operations.toString();
  }

  /** The JSON pointer of the annotation {@code key}. */
  private static String path(String key) {
    return "/metadata/annotations/" + key.replace("~", "~0").replace("/", "~1");
  }

  /**
   * Patches {@code target}, which names the object: fabric8 reads an object it was not given before
   * it patches it (its {@code getItemOrRequireFromServer}), a round trip a merge patch does not
   * need.
   */
  private <T extends HasMetadata> void apply(T target, Map<String, String> changes) {
    Resource<T> resource = client.resource(target);
    ObjectNode values = JSON.createObjectNode();
    changes.forEach(
        (key, value) -> {
          if (value != null) {
            values.put(key, value);
          }
        });
    if (!values.isEmpty()) {
      ObjectNode merge = JSON.createObjectNode();
      merge.putObject("metadata").set("annotations", values);
      resource.patch(PatchContext.of(PatchType.JSON_MERGE), merge.toString());
    }
    if (changes.values().stream().anyMatch(Objects::isNull)) {
      remove(resource, changes);
    }
  }

  /**
   * Removes the keys mapped to null that are present; again if another writer removed one first.
   */
  private static <T extends HasMetadata> void remove(
      Resource<T> resource, Map<String, String> changes) {
    for (int attempt = 1; ; attempt++) {
      T current = resource.get();
      Map<String, String> present =
          current == null || current.getMetadata().getAnnotations() == null
              ? Map.of()
              : current.getMetadata().getAnnotations();
      ArrayNode operations = JSON.createArrayNode();
      changes.forEach(
          (key, value) -> {
            if (value == null && present.containsKey(key)) {
              operations.addObject().put("op", "remove").put("path", path(key));
            }
          });
      if (operations.isEmpty()) {
        return;
      }
      try {
        resource.patch(PatchContext.of(PatchType.JSON), operations.toString());
        return;
      } catch (KubernetesClientException e) {
        if (attempt == REMOVE_ATTEMPTS) {
          throw e;
        }
      }
    }
  }
}
