package org.vnpu.sandbox;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Set;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sandbox's Kubernetes API server: fabric8's CRUD mock server on the loopback address, with pod
 * binding (ADR 0007). It keeps every object in memory; watches and patches work as the components
 * need them.
 */
public final class ApiServer implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ApiServer.class);

  private final KubernetesMockServer server;
  private final KubernetesClient client;

  private ApiServer(KubernetesMockServer server) {
    this.server = server;
    this.client = server.createClient();
  }

  /** Serves on {@code port} of 127.0.0.1 (0: any free port). */
  public static ApiServer start(int port) {
    return start(port, request -> {});
  }

  /** Held here: java.util.logging forgets the level of a logger nobody references. */
  private static final java.util.logging.Logger REQUEST_LOG =
      java.util.logging.Logger.getLogger("io.fabric8.mockwebserver");

  /** Leaves out the mock server's line per request (java.util.logging, INFO), in this JVM. */
  public static void quietRequests() {
    REQUEST_LOG.setLevel(java.util.logging.Level.WARNING);
  }

  /** As {@link #start(int)}, showing every request to {@code observer} before answering it. */
  public static ApiServer start(int port, Consumer<RecordedRequest> observer) {
    return start(port, observer, Set.of());
  }

  /**
   * As {@link #start(int, Consumer)}, with the feature gates {@code offGates} off: the fields they
   * guard are dropped from what is stored, as a real API server does (e.g. {@code
   * DRAPartitionableDevices}, which is off by default before 1.36).
   */
  public static ApiServer start(
      int port, Consumer<RecordedRequest> observer, Set<String> offGates) {
    KubernetesMockServer server =
        new KubernetesMockServer(
            new Context(),
            new MockWebServer(),
            new HashMap<>(),
            new SandboxDispatcher(observer, offGates),
            false);
    server.init(InetAddress.getLoopbackAddress(), port);
    return new ApiServer(server);
  }

  /** A client of this server; shared by the sandbox's components, closed with the server. */
  public KubernetesClient client() {
    return client;
  }

  /** The server's URL, for example {@code http://127.0.0.1:40123}. */
  public String url() {
    return "http://127.0.0.1:" + server.getPort();
  }

  /** Writes a kubeconfig for kubectl (no credentials: the server asks for none). */
  public Path writeKubeconfig(Path file) throws IOException {
    Files.createDirectories(file.toAbsolutePath().getParent());
    Files.writeString(
        file,
        """
        apiVersion: v1
        kind: Config
        clusters:
          - name: vnpu-sandbox
            cluster: {server: "%s"}
        users:
          - name: vnpu-sandbox
            user: {}
        contexts:
          - name: vnpu-sandbox
            context: {cluster: vnpu-sandbox, user: vnpu-sandbox, namespace: default}
        current-context: vnpu-sandbox
        """
            .formatted(url()));
    return file;
  }

  /**
   * Stops the server. Its connection threads get a few seconds to end; a watch a client left open
   * past that is abandoned with a warning rather than failing the shutdown.
   */
  @Override
  public void close() {
    client.close();
    try {
      server.destroy();
    } catch (IllegalStateException e) {
      LOG.warn("API server on {} stopped with connections still open: {}", url(), e.getMessage());
    }
  }
}
