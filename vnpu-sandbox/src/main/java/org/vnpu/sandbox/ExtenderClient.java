package org.vnpu.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import javax.net.ssl.SSLContext;

/** Posts the extender protocols' JSON to the vNPU scheduler, as Volcano and kube-scheduler do. */
final class ExtenderClient {

  static final ObjectMapper JSON = new ObjectMapper();

  /**
   * kube-scheduler's {@code DefaultExtenderTimeout} ({@code pkg/scheduler/extender.go}), which is
   * also the chart's {@code scheduler.kubeScheduler.httpTimeout}.
   */
  static final Duration KUBE_SCHEDULER_TIMEOUT = Duration.ofSeconds(5);

  private final HttpClient http;
  private final String baseUrl;
  private final Duration timeout;

  private ExtenderClient(HttpClient http, String baseUrl, Duration timeout) {
    this.http = http;
    this.baseUrl = baseUrl;
    this.timeout = timeout;
  }

  /**
   * Volcano's extender plugin's {@code httpTimeout} ({@code pkg/scheduler/plugins/extender/
   * extender.go}, {@code parseExtenderConfig}: 1 s unless {@code extender.httpTimeout} says
   * otherwise), which is also what {@code vnpu volcano-config} writes by default.
   */
  static final Duration VOLCANO_TIMEOUT = Duration.ofSeconds(1);

  /**
   * A client of the extender's plain HTTP as Volcano's extender plugin ({@code New}: {@code
   * http.Client{Timeout: httpTimeout}}): one timeout for the whole exchange, the dial included.
   */
  static ExtenderClient volcano(String baseUrl) {
    return new ExtenderClient(HttpClient.newHttpClient(), baseUrl, VOLCANO_TIMEOUT);
  }

  /**
   * A client as kube-scheduler's {@code HTTPExtender} ({@code NewHTTPExtender}): one timeout, the
   * profile's {@code httpTimeout}, for the whole exchange, the dial and the TLS handshake included
   * (Go's {@code http.Client.Timeout}); over TLS with {@code tls}'s client certificate, trusting
   * only servers of its CA, when the chart's {@code tlsConfig} is on ({@code tls} non-null).
   */
  static ExtenderClient kubeScheduler(String baseUrl, SSLContext tls) {
    HttpClient.Builder http = HttpClient.newBuilder();
    if (tls != null) {
      http.sslContext(tls);
    }
    return new ExtenderClient(http.build(), baseUrl, KUBE_SCHEDULER_TIMEOUT);
  }

  /** The pod as the schedulers send it: the full v1.Pod. */
  static JsonNode pod(Pod pod) {
    try {
      return JSON.readTree(Serialization.asJson(pod));
    } catch (IOException e) {
      throw new IllegalArgumentException("pod does not serialise: " + e.getMessage(), e);
    }
  }

  /** The answer of {@code verb}; IOException when the scheduler is unreachable or says no. */
  JsonNode post(String verb, Object body) throws IOException, InterruptedException {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(URI.create(baseUrl + verb))
                .timeout(timeout)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IOException(
          verb + " answered HTTP " + response.statusCode() + ": " + response.body());
    }
    return JSON.readTree(response.body());
  }
}
