package org.vnpu.cluster;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.authentication.BoundObjectReference;
import io.fabric8.kubernetes.api.model.authentication.TokenRequest;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestSpec;
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
    return kubeconfig(namespace, account, namespace + "-" + account, new TokenRequestSpec());
  }

  /**
   * A kubeconfig of the service account of {@code pod}, with a token bound to the pod as the
   * kubelet projects it into the pod: the API server then names the pod's node in the user's {@code
   * authentication.kubernetes.io/node-name} extra.
   */
  public Path kubeconfigOf(Pod pod) throws IOException {
    TokenRequestSpec bound = new TokenRequestSpec();
    bound.setBoundObjectRef(
        new BoundObjectReference(
            "v1", "Pod", pod.getMetadata().getName(), pod.getMetadata().getUid()));
    return kubeconfig(
        pod.getMetadata().getNamespace(),
        pod.getSpec().getServiceAccountName(),
        pod.getMetadata().getNamespace() + "-" + pod.getMetadata().getName(),
        bound);
  }

  private Path kubeconfig(String namespace, String account, String name, TokenRequestSpec spec)
      throws IOException {
    spec.setExpirationSeconds(EXPIRATION_SECONDS);
    TokenRequest request = new TokenRequestBuilder().withSpec(spec).build();
    String token =
        admin
            .serviceAccounts()
            .inNamespace(namespace)
            .withName(account)
            .tokenRequest(request)
            .getStatus()
            .getToken();
    return Kubeconfig.withToken(
        plane.directory().resolve("kubeconfigs").resolve(name + ".kubeconfig"),
        plane.server(),
        plane.pki().caCertificate(),
        token);
  }
}
