package org.vnpu.sandbox;

import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.MockResponse;
import java.net.HttpURLConnection;

/** The {@code Status} bodies the API server answers failures and subresource successes with. */
final class ApiStatus {

  private ApiStatus() {}

  /** A failure of {@code code} with the API server's {@code reason} and {@code message}. */
  static MockResponse failure(int code, String reason, String message) {
    Status status =
        new StatusBuilder()
            .withStatus("Failure")
            .withCode(code)
            .withReason(reason)
            .withMessage(message)
            .build();
    return new MockResponse().setResponseCode(code).setBody(Serialization.asJson(status));
  }

  /** 201 with a {@code Success} status, as a binding or an eviction is answered. */
  static MockResponse created() {
    return new MockResponse()
        .setResponseCode(HttpURLConnection.HTTP_CREATED)
        .setBody(
            Serialization.asJson(new StatusBuilder().withStatus("Success").withCode(201).build()));
  }
}
