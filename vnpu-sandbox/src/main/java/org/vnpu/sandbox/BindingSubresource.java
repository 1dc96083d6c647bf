package org.vnpu.sandbox;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Binding;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.net.HttpURLConnection;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Pod binding as the API server serves it: {@code POST /api/v1/namespaces/NS/pods/NAME/binding}
 * (kube-scheduler, Volcano) and {@code POST /api/v1/namespaces/NS/bindings} (fabric8's {@code
 * bindings()}) set the pod's {@code spec.nodeName}; a pod bound elsewhere is refused with 409, a
 * missing pod with 404.
 */
final class BindingSubresource {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final MockStore store;

  BindingSubresource(MockStore store) {
    this.store = store;
  }

  /**
   * {@code pkg/registry/core/pod/storage/storage.go}, {@code setPodHostAndAnnotations}: the node is
   * set and the binding's annotations are merged onto the pod's (Volcano's binder sends the pod's
   * annotations as its cache had them).
   */
  private static String bindingPatch(String node, Pod pod, Map<String, String> annotations) {
    ArrayNode ops = JSON.createArrayNode();
    ops.addObject().put("op", "add").put("path", "/spec/nodeName").put("value", node);
    if (annotations != null && !annotations.isEmpty()) {
      if (pod.getMetadata().getAnnotations() == null) {
        ObjectNode all = ops.addObject().put("op", "add").put("path", "/metadata/annotations");
        all.set("value", JSON.valueToTree(annotations));
      } else {
        annotations.forEach(
            (key, value) ->
                ops.addObject()
                    .put("op", "add")
                    .put(
                        "path",
                        "/metadata/annotations/" + key.replace("~", "~0").replace("/", "~1"))
                    .put("value", value));
      }
    }
    return ops.toString();
  }

  /** Binds pod {@code name} of {@code namespace}, or the one the Binding names when it is null. */
  MockResponse bind(String namespace, String name, RecordedRequest request) {
    synchronized (store) {
      return bound(namespace, name, request);
    }
  }

  private MockResponse bound(String namespace, String name, RecordedRequest request) {
    Binding binding;
    try {
      binding = Serialization.unmarshal(request.getUtf8Body(), Binding.class);
    } catch (RuntimeException e) {
      return ApiStatus.failure(
          HttpURLConnection.HTTP_BAD_REQUEST, "BadRequest", "binding is not JSON");
    }
    String pod = name != null ? name : binding.getMetadata().getName();
    if (binding.getTarget() == null || binding.getTarget().getName() == null || pod == null) {
      return ApiStatus.failure(
          HttpURLConnection.HTTP_BAD_REQUEST,
          "BadRequest",
          "binding needs metadata.name and target.name");
    }
    String node = binding.getTarget().getName();
    String podPath = "/api/v1/namespaces/" + namespace + "/pods/" + pod;
    MockResponse current = store.get(podPath);
    if (current.code() != HttpURLConnection.HTTP_OK) {
      return ApiStatus.failure(
          HttpURLConnection.HTTP_NOT_FOUND, "NotFound", "pods \"" + pod + "\" not found");
    }
    Pod existing =
        Serialization.unmarshal(current.getBody().readString(StandardCharsets.UTF_8), Pod.class);
    String boundTo = existing.getSpec() == null ? null : existing.getSpec().getNodeName();
    if (boundTo != null) {
      return ApiStatus.failure(
          HttpURLConnection.HTTP_CONFLICT,
          "Conflict",
          "pod " + pod + " is already assigned to node \"" + boundTo + "\"");
    }
    String patch = bindingPatch(node, existing, binding.getMetadata().getAnnotations());
    MockResponse patched =
        store.patch(
            new RecordedRequest(
                "HTTP/1.1",
                HttpMethod.PATCH,
                podPath,
                Headers.builder().add("Content-Type", "application/json-patch+json").build(),
                new Buffer(patch.getBytes(StandardCharsets.UTF_8))));
    if (patched.code() != HttpURLConnection.HTTP_OK) {
      return patched;
    }
    return ApiStatus.created();
  }
}
