package org.vnpu.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.vnpu.api.ResourceNames;
import org.vnpu.kube.ExtenderCertificates;

/**
 * With mutual TLS, kube-scheduler's verbs answer only over TLS and only to the client certificate
 * of the release's own CA: not on plain HTTP, not without a certificate, not to a certificate of
 * another CA. Volcano's verbs, health and metrics stay on plain HTTP. Slow clients of the plain
 * port (a body that trickles, a huge declared length, a flood of connections) hold neither its
 * threads nor its budget, nor anything of the TLS port.
 */
@EnableKubernetesMockClient(crud = true)
class ExtenderTlsTest {

  private static final List<String> LOOPBACK = List.of("127.0.0.1");

  KubernetesClient client;

  private ExtenderCertificates certificates;
  private SchedulerService service;

  @BeforeEach
  void start() throws IOException {
    certificates = ExtenderCertificates.bootstrap(client, "vnpu", "vnpu-extender-tls", LOOPBACK);
    service = MutualTlsExtender.start(client, certificates);
  }

  @AfterEach
  void stop() {
    service.close();
    // Before the mock shuts down: its Vert.x 5 server waits for each open WebSocket to close.
    client.close();
  }

  @Test
  void kubeSchedulersClientCertificateGetsTheVerbsOverTls() throws Exception {
    HttpResponse<String> filter = post(tls(certificates.clientContext()), tlsUrl("/kube/filter"));

    assertThat(filter.statusCode()).as(filter.body()).isEqualTo(200);
    assertThat(filter.body()).contains("FailedNodes").contains("cpu-only");
    assertThat(filter.version())
        .as("HTTP/2 by ALPN: concurrent calls share one connection and one handshake")
        .isEqualTo(HttpClient.Version.HTTP_2);
  }

  @Test
  void onPlainHttpTheKubeVerbsAreRefusedAndVolcanosHealthAndMetricsAnswer() throws Exception {
    HttpClient plain = HttpClient.newHttpClient();

    HttpResponse<String> filter = post(plain, plainUrl("/kube/filter"));
    assertThat(filter.statusCode()).isEqualTo(403);
    assertThat(filter.headers().firstValue("connection"))
        .as("its body unread, the connection is not kept for the next request")
        .hasValue("close");
    assertThat(filter.body())
        .contains("only over TLS with a client certificate")
        .contains(String.valueOf(service.tlsPort()));
    assertThat(post(plain, plainUrl("/volcano/predicate")).statusCode()).isEqualTo(200);
    assertThat(get(plain, plainUrl("/healthz"))).isEqualTo(200);
    assertThat(get(plain, plainUrl("/metrics"))).isEqualTo(200);
  }

  @Test
  void aClientWithoutACertificateIsRefusedInTheHandshake() throws Exception {
    SSLContext trustingOnly = SSLContext.getInstance("TLS");
    trustingOnly.init(null, trust(certificates.authority()), null);

    assertThatThrownBy(() -> post(tls(trustingOnly), tlsUrl("/kube/filter")))
        .isInstanceOf(IOException.class);
  }

  @Test
  void aClientCertificateOfAnotherAuthorityIsRefusedInTheHandshake() throws Exception {
    ExtenderCertificates.bootstrap(client, "elsewhere", "vnpu-extender-tls", LOOPBACK);
    Map<String, String> other =
        client.secrets().inNamespace("elsewhere").withName("vnpu-extender-tls").get().getData();
    SSLContext foreign = SSLContext.getInstance("TLS");
    foreign.init(
        keys(
            pem(other.get(ExtenderCertificates.CLIENT_CERT)),
            pem(other.get(ExtenderCertificates.CLIENT_KEY))),
        trust(certificates.authority()),
        null);

    assertThatThrownBy(() -> post(tls(foreign), tlsUrl("/kube/filter")))
        .isInstanceOf(IOException.class);
  }

  @Test
  void clientsAnnouncingHugeBodiesAndTricklingThemHoldNothingTheOthersNeed() throws Exception {
    // Charged by what they declared, twelve such bodies took more than the whole budget of a
    // 6 GiB heap, and 12 of the 16 threads.
    List<Socket> trickling = new ArrayList<>();
    try {
      for (int i = 0; i < 12; i++) {
        trickling.add(trickle(service.port(), "/volcano/predicate", 10 << 20));
      }
      bothPortsServe(8);
    } finally {
      closeAll(trickling);
    }
  }

  @Test
  void aBodyThatTricklesIsAnswered408WhenItsTimeIsUp() throws Exception {
    try (Socket slow = trickle(service.port(), "/volcano/predicate", 100)) {
      slow.setSoTimeout((int) BodyReader.GRACE.plusSeconds(5).toMillis());
      OutputStream out = slow.getOutputStream();
      long started = System.nanoTime();
      String status = "";
      BufferedReader in =
          new BufferedReader(new InputStreamReader(slow.getInputStream(), StandardCharsets.UTF_8));
      for (int sent = 1; sent < 100 && status.isEmpty(); sent++) {
        if (slow.getInputStream().available() > 0) {
          status = in.readLine();
          break;
        }
        try {
          out.write('x');
          out.flush();
        } catch (IOException closed) {
          break; // answered and closed: read the answer
        }
        Thread.sleep(500);
      }
      if (status.isEmpty()) {
        status = in.readLine();
      }
      assertThat(status).startsWith("HTTP/1.1 408");
      assertThat(Duration.ofNanos(System.nanoTime() - started))
          .isLessThan(BodyReader.GRACE.plusSeconds(3));
    }
  }

  @Test
  void aFloodOfSlowConnectionsOnThePlainPortLeavesBothPortsServing() throws Exception {
    List<Socket> flood = new ArrayList<>();
    try {
      for (int i = 0; i < 64; i++) {
        flood.add(trickle(service.port(), "/volcano/predicate", 1000));
      }
      bothPortsServe(1);
    } finally {
      closeAll(flood);
    }
  }

  /**
   * Within 3 s each: {@code plainCalls} Volcano verbs on the plain port, kube-scheduler's filter on
   * the TLS port, and a healthy {@code /healthz}.
   */
  private void bothPortsServe(int plainCalls) throws Exception {
    HttpClient plain = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    for (int i = 0; i < plainCalls; i++) {
      assertThat(post(plain, plainUrl("/volcano/predicate"), Duration.ofSeconds(3)).statusCode())
          .isEqualTo(200);
    }
    assertThat(
            post(tls(certificates.clientContext()), tlsUrl("/kube/filter"), Duration.ofSeconds(3))
                .statusCode())
        .isEqualTo(200);
    assertThat(get(plain, plainUrl("/healthz"))).isEqualTo(200);
  }

  private static void closeAll(List<Socket> sockets) throws IOException {
    for (Socket socket : sockets) {
      socket.close();
    }
  }

  /** A connection that sent a POST announcing {@code length} bytes, and one byte of them. */
  private static Socket trickle(int port, String path, int length) throws IOException {
    Socket socket = new Socket("127.0.0.1", port);
    OutputStream out = socket.getOutputStream();
    out.write(
        ("POST "
                + path
                + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Content-Length: "
                + length
                + "\r\n\r\n{")
            .getBytes(StandardCharsets.US_ASCII));
    out.flush();
    return socket;
  }

  private String tlsUrl(String path) {
    return "https://127.0.0.1:" + service.tlsPort() + path;
  }

  private String plainUrl(String path) {
    return "http://127.0.0.1:" + service.port() + path;
  }

  private static HttpResponse<String> post(HttpClient http, String url) throws Exception {
    return post(http, url, Duration.ofSeconds(30));
  }

  /** A filter of a one-vNPU pod against a node without chips, in the URL's protocol. */
  private static HttpResponse<String> post(HttpClient http, String url, Duration timeout)
      throws Exception {
    String pod =
        Serialization.asJson(
            new PodBuilder()
                .withNewMetadata()
                .withName("bert")
                .withNamespace("default")
                .withUid("uid-bert")
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("model")
                .withNewResources()
                .addToLimits(ResourceNames.VNPU_NUMBER, new Quantity("1"))
                .addToLimits(ResourceNames.VNPU_CORES, new Quantity("30"))
                .endResources()
                .endContainer()
                .endSpec()
                .build());
    String body =
        url.contains("/kube/")
            ? "{\"Pod\": " + pod + ", \"NodeNames\": [\"cpu-only\"]}"
            : "{\"task\": {\"Pod\": " + pod + "}, \"node\": {\"Name\": \"cpu-only\"}}";
    return http.send(
        HttpRequest.newBuilder(URI.create(url))
            .timeout(timeout)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static int get(HttpClient http, String url) throws Exception {
    return http.send(
            HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }

  private static HttpClient tls(SSLContext context) {
    return HttpClient.newBuilder().sslContext(context).build();
  }

  private static javax.net.ssl.TrustManager[] trust(Certificate authority) throws Exception {
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    store.setCertificateEntry("ca", authority);
    TrustManagerFactory factory =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    factory.init(store);
    return factory.getTrustManagers();
  }

  private static javax.net.ssl.KeyManager[] keys(String certificate, String key) throws Exception {
    Certificate cert =
        CertificateFactory.getInstance("X.509")
            .generateCertificate(
                new ByteArrayInputStream(certificate.getBytes(StandardCharsets.US_ASCII)));
    String body = key.replaceAll("-----[A-Z ]+-----", "");
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    store.setKeyEntry(
        "client",
        KeyFactory.getInstance("EC")
            .generatePrivate(new PKCS8EncodedKeySpec(Base64.getMimeDecoder().decode(body))),
        new char[0],
        new Certificate[] {cert});
    KeyManagerFactory factory =
        KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    factory.init(store, new char[0]);
    return factory.getKeyManagers();
  }

  private static String pem(String base64) {
    return new String(Base64.getDecoder().decode(base64), StandardCharsets.US_ASCII);
  }
}
