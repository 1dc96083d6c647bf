package org.vnpu.kube;

import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;

/**
 * A client of fabric8's mock that gives up on a request after a second. The mock answers nothing to
 * a JSON patch that does not apply (its patch engine throws), so its client waits until the request
 * times out, 10 s by default; the real API server answers 422 at once ({@code handlers/patch.go
 * applyJSPatch}), as the sandbox's API server does too.
 */
final class QuickTimeouts {

  private QuickTimeouts() {}

  static KubernetesClient of(KubernetesClient mockClient) {
    return new KubernetesClientBuilder()
        .withConfig(
            new ConfigBuilder(mockClient.getConfiguration())
                .withRequestTimeout(1_000)
                .withRequestRetryBackoffLimit(0)
                .build())
        .build();
  }
}
