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

  private final HttpClient http;
  private final String baseUrl;

  /** A client of the extender's plain HTTP, as Volcano's. */
  ExtenderClient(String baseUrl) {
    this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    this.baseUrl = baseUrl;
  }

  /**
   * A client of the extender's TLS port, as kube-scheduler's with the chart's {@code tlsConfig}: it
   * presents {@code tls}'s client certificate and trusts only servers of its CA.
   */
  ExtenderClient(String baseUrl, SSLContext tls) {
    this.http =
        HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).sslContext(tls).build();
    this.baseUrl = baseUrl;
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
                .timeout(Duration.ofSeconds(10))
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
