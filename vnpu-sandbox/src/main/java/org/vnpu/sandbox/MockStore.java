package org.vnpu.sandbox;

import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;

/**
 * The sandbox API server's store as its routes use it: fabric8's CRUD mock, read and written as a
 * client's request would be. The routes that read before they write hold the store's monitor, so
 * that a binding and an eviction of one pod do not interleave.
 */
interface MockStore {

  /** The object or list at {@code path}, as a GET answers it. */
  MockResponse get(String path);

  /** The request, answered by the CRUD mock as it stands. */
  MockResponse store(RecordedRequest request);

  /** A JSON patch or merge patch of the object at the request's path. */
  MockResponse patch(RecordedRequest request);

  /** A replacement of the object at the request's path. */
  MockResponse update(RecordedRequest request);

  /** A deletion of the object at {@code path}. */
  MockResponse delete(String path);
}
