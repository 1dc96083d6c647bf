package org.vnpu.bench;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.util.HashMap;

/** fabric8's CRUD mock API server and a client of it, for benchmarks outside JUnit. */
final class MockApiServer implements AutoCloseable {

  private final KubernetesMockServer server;
  private final KubernetesClient client;

  MockApiServer() {
    server =
        new KubernetesMockServer(
            new Context(),
            new MockWebServer(),
            new HashMap<>(),
            new KubernetesCrudDispatcher(),
            false);
    server.init();
    client = server.createClient();
  }

  KubernetesClient client() {
    return client;
  }

  @Override
  public void close() {
    client.close();
    server.destroy();
  }
}
