package org.vnpu.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class ExtenderPortTest {

  @Test
  void aPortWhoseRequestsWaitAndGetNoAnswerIsStalledUntilItAnswersAgain() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch deciding = new CountDownLatch(1);
    ExtenderPort.Routes stuck =
        new ExtenderPort.Routes() {
          @Override
          public ExtenderPort.Reply immediate(String method, String path, boolean secure) {
            return null;
          }

          @Override
          public int maxBody(String path) {
            return 1024;
          }

          @Override
          public int expansion(String path) {
            return RequestBudget.EXPANSION;
          }

          @Override
          public ExtenderPort.Reply answer(String path, InputStream body) {
            deciding.countDown();
            try {
              release.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            return ExtenderPort.Reply.text(200, "decided");
          }

          @Override
          public void refused(String path, int status) {}
        };
    try (ExtenderPort port =
        new ExtenderPort(
            "plain",
            new InetSocketAddress("127.0.0.1", 0),
            stuck,
            4,
            16,
            Duration.ofSeconds(30),
            new RequestBudget(1L << 30, 4))) {
      port.start();
      CompletableFuture<HttpResponse<String>> answer =
          HttpClient.newHttpClient()
              .sendAsync(
                  HttpRequest.newBuilder(
                          URI.create("http://127.0.0.1:" + port.localPort() + "/volcano/x"))
                      .POST(HttpRequest.BodyPublishers.ofString("{}"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      deciding.await();
      assertThat(port.stalled(Duration.ofSeconds(30))).as("not for long yet").isFalse();
      await().until(() -> port.stalled(Duration.ofMillis(200)));

      release.countDown();
      assertThat(answer.get().body()).isEqualTo("decided\n");
      assertThat(port.stalled(Duration.ofMillis(200))).isFalse();
    }
  }
}
