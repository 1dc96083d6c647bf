package org.vnpu.sandbox;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.server.mock.KubernetesAttributesExtractor;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.mockwebserver.crud.AttributeSet;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.zjsonpatch.JsonPatchException;
import java.net.HttpURLConnection;
import java.util.AbstractMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * fabric8's CRUD mock with its store indexed by name, and each stored change told to a subclass:
 * the one class of the sandbox that reaches into the mock's store and lock, through the hooks the
 * mock offers ({@code findResource}, {@code locked}, {@code processEvent}); and a JSON patch that
 * does not apply answered as the real API server answers it. The mock otherwise scans every stored
 * object for each read, update and patch by name.
 */
abstract class IndexedCrudDispatcher extends KubernetesCrudDispatcher {

  private static final int UNPROCESSABLE_ENTITY = 422;

  /**
   * Where each object asked for by name was last found in the mock's store: the query's attributes
   * (kind, namespace, name) to the key it is stored under. The mock otherwise scans every stored
   * object for each read, update and patch by name; a key is checked against the store each time
   * and looked for again when it no longer matches.
   */
  private final Map<AttributeSet, AttributeSet> keys = new ConcurrentHashMap<>();

  /** The mock's read lock, once it was taken (its {@link #locked} hook tells). */
  private volatile Lock readLock;

  /**
   * A change stored at {@code path}: the object as it was ({@code null} when created) and as it is
   * ({@code null} when deleted), as the mock's watches see it.
   */
  abstract void changed(String path, String before, String after);

  /** The object {@code query} names, found by its last known key; else as the mock finds it. */
  @Override
  public Map.Entry<AttributeSet, String> findResource(AttributeSet query) {
    AttributeSet key = keys.get(query);
    String stored = key == null ? null : map.get(key);
    if (stored != null && key.matches(query)) {
      return new AbstractMap.SimpleImmutableEntry<>(key, stored);
    }
    Map.Entry<AttributeSet, String> found = super.findResource(query);
    if (found != null && query.containsKey(KubernetesAttributesExtractor.NAME)) {
      keys.put(query, found.getKey());
    } else {
      keys.remove(query);
    }
    return found;
  }

  /** A read of one object by name finds it by key ({@link #findResource}), under the read lock. */
  @Override
  public MockResponse handleGet(String path) {
    Lock lock = readLock;
    AttributeSet query = path.contains("?") || lock == null ? null : getKey(path);
    if (query == null || !query.containsKey(KubernetesAttributesExtractor.NAME)) {
      return super.handleGet(path);
    }
    lock.lock();
    try {
      Map.Entry<AttributeSet, String> found = findResource(query);
      return found == null
          ? new MockResponse().setResponseCode(HttpURLConnection.HTTP_NOT_FOUND)
          : new MockResponse().setResponseCode(HttpURLConnection.HTTP_OK).setBody(found.getValue());
    } finally {
      lock.unlock();
    }
  }

  @Override
  protected void locked(Lock lock) {
    if (readLock == null && lock instanceof ReentrantReadWriteLock.ReadLock) {
      readLock = lock;
    }
  }

  /**
   * A JSON patch that does not apply (a {@code test} that fails, a path that is not there) is
   * answered 422, as the real API server answers it ({@code
   * staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go applyJSPatch}); the mock throws,
   * answers nothing, and its client waits until the request times out.
   */
  @Override
  public MockResponse handlePatch(RecordedRequest request) {
    try {
      return super.handlePatch(request);
    } catch (JsonPatchException e) {
      return ApiStatus.failure(UNPROCESSABLE_ENTITY, "Invalid", e.getMessage());
    }
  }

  @Override
  public void processEvent(
      String path,
      AttributeSet pathAttributes,
      AttributeSet oldAttributes,
      GenericKubernetesResource resource,
      String newState) {
    String before = oldAttributes == null ? null : map.get(oldAttributes);
    super.processEvent(path, pathAttributes, oldAttributes, resource, newState);
    changed(path, before, newState);
  }
}
