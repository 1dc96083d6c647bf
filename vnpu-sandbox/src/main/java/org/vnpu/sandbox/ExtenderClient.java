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

/** Posts the extender protocols' JSON to the vNPU scheduler, as Volcano and kube-scheduler do. */
final class ExtenderClient {

  static final ObjectMapper JSON = new ObjectMapper();

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private final String baseUrl;

  ExtenderClient(String baseUrl) {
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
