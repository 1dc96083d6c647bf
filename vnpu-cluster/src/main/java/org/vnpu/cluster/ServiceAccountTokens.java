package org.vnpu.cluster;

import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequest;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Kubeconfigs of service accounts, with tokens from the TokenRequest API, as the kubelet gives a
 * pod of that account: a component run as a local process authenticates as its chart
 * ServiceAccount, so every request it makes goes through the real RBAC.
 */
public final class ServiceAccountTokens {

  /** A day: longer than any scenario; the API server caps nothing shorter than its maximum. */
  private static final long EXPIRATION_SECONDS = 24 * 3600;

  private final ControlPlane plane;
  private final KubernetesClient admin;

  public ServiceAccountTokens(ControlPlane plane, KubernetesClient admin) {
    this.plane = plane;
    this.admin = admin;
  }

  /**
   * A kubeconfig of {@code namespace/account} ({@code
   * kubeconfigs/<namespace>-<account>.kubeconfig}); the account is created when missing.
   */
  public Path kubeconfig(String namespace, String account) throws IOException {
    if (admin.serviceAccounts().inNamespace(namespace).withName(account).get() == null) {
      admin
          .serviceAccounts()
          .inNamespace(namespace)
          .resource(
              new ServiceAccountBuilder()
                  .withNewMetadata()
                  .withName(account)
                  .withNamespace(namespace)
                  .endMetadata()
                  .build())
          .create();
    }
    TokenRequest request =
        new TokenRequestBuilder()
            .withNewSpec()
            .withExpirationSeconds(EXPIRATION_SECONDS)
            .endSpec()
            .build();
    String token =
        admin
            .serviceAccounts()
            .inNamespace(namespace)
            .withName(account)
            .tokenRequest(request)
            .getStatus()
            .getToken();
    return Kubeconfig.withToken(
        plane.directory().resolve("kubeconfigs").resolve(namespace + "-" + account + ".kubeconfig"),
        plane.server(),
        plane.pki().caCertificate(),
        token);
  }
}
