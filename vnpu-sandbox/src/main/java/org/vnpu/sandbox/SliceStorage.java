package org.vnpu.sandbox;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.net.HttpURLConnection;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;

/**
 * ResourceSlices as the API server stores them: fields of feature gates that are off are dropped
 * and the rules of {@code resource.k8s.io/v1} validation are checked ({@link ResourceSliceRules});
 * a slice that breaks one is refused with 422 naming the field.
 */
final class SliceStorage {

  private final MockStore store;
  private final Set<String> offGates;

  /**
   * @param offGates feature gates that are off, whose fields are dropped
   */
  SliceStorage(MockStore store, Set<String> offGates) {
    this.store = store;
    this.offGates = Set.copyOf(offGates);
  }

  /**
   * A ResourceSlice created or replaced as the API server's strategy does it ({@code
   * resourceslice/strategy.go}: {@code PrepareForCreate}/{@code PrepareForUpdate} drop the fields
   * of gates that are off, then {@code Validate}/{@code ValidateUpdate}).
   */
  MockResponse store(String path, RecordedRequest request) {
    synchronized (store) {
      return stored(path, request);
    }
  }

  private MockResponse stored(String path, RecordedRequest request) {
    ResourceSlice slice;
    try {
      slice = Serialization.unmarshal(request.getUtf8Body(), ResourceSlice.class);
    } catch (RuntimeException e) {
      return ApiStatus.failure(
          HttpURLConnection.HTTP_BAD_REQUEST, "BadRequest", "not a ResourceSlice");
    }
    ResourceSlice stored = null;
    if (request.method() == HttpMethod.PUT) {
      MockResponse current = store.get(path);
      if (current.code() == HttpURLConnection.HTTP_OK) {
        stored =
            Serialization.unmarshal(
                current.getBody().readString(StandardCharsets.UTF_8), ResourceSlice.class);
      }
    }
    if (slice.getSpec() != null) {
      SliceGates.dropDisabledFields(slice, stored, offGates);
    }
    List<String> violations = ResourceSliceRules.violations(slice);
    if (!violations.isEmpty()) {
      String name = slice.getMetadata() == null ? "" : slice.getMetadata().getName();
      return ApiStatus.failure(
          422,
          "Invalid",
          "ResourceSlice.resource.k8s.io \""
              + name
              + "\" is invalid: "
              + String.join(", ", violations));
    }
    return store.store(
        new RecordedRequest(
            request.getHttpVersion(),
            request.method(),
            request.getPath(),
            request.getHeaders(),
            new Buffer(Serialization.asJson(slice).getBytes(StandardCharsets.UTF_8))));
  }
}
