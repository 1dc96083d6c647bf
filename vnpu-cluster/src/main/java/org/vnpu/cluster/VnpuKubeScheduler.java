package org.vnpu.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.vnpu.kube.ExtenderCertificates;

/**
 * The chart's second kube-scheduler, the {@code vnpu-scheduler} profile that calls the extender, as
 * a local process of the upstream kube-scheduler: the KubeSchedulerConfiguration the release put in
 * its ConfigMap, with what a pod of its Deployment would have mounted (the client pair from the
 * extender's Secret, a token of its ServiceAccount) and the extender reached through the leader's
 * proxy on loopback instead of the Service's name.
 */
public final class VnpuKubeScheduler {

  private static final YAMLMapper YAML = new YAMLMapper();
  private static final Duration READY = Duration.ofSeconds(90);
  private static final String NAME = VnpuRelease.NAME + "-kube-scheduler";

  private VnpuKubeScheduler() {}

  /** Starts it once the scheduler has made the extender's certificates. */
  public static Component start(
      ControlPlane plane,
      UpstreamBinaries binaries,
      KubernetesClient admin,
      ServiceAccountTokens tokens,
      SchedulerReplicas extender)
      throws IOException, InterruptedException {
    ConfigMap config = admin.configMaps().inNamespace(VnpuRelease.NAMESPACE).withName(NAME).get();
    if (config == null) {
      throw new IllegalStateException(
          "the release has no ConfigMap " + VnpuRelease.NAMESPACE + "/" + NAME);
    }
    ObjectNode configuration =
        (ObjectNode) YAML.readTree(config.getData().get("kube-scheduler-config.yaml"));
    Path directory = Files.createDirectories(plane.directory().resolve(NAME));
    configuration
        .putObject("clientConnection")
        .put("kubeconfig", tokens.kubeconfig(VnpuRelease.NAMESPACE, NAME).toString());
    ObjectNode extenderConfig = (ObjectNode) configuration.path("extenders").get(0);
    extenderConfig.put("urlPrefix", extender.kubeSchedulerUrl());
    JsonNode tls = extenderConfig.path("tlsConfig");
    if (tls.isObject()) {
      Secret secret =
          admin
              .secrets()
              .inNamespace(VnpuRelease.NAMESPACE)
              .withName(VnpuRelease.NAME + "-extender-tls")
              .waitUntilCondition(s -> s != null && s.getData() != null, 60, TimeUnit.SECONDS);
      ObjectNode files = (ObjectNode) tls;
      files.put("caFile", write(directory, secret, ExtenderCertificates.CA_CERT).toString());
      files.put("certFile", write(directory, secret, ExtenderCertificates.CLIENT_CERT).toString());
      files.put("keyFile", write(directory, secret, ExtenderCertificates.CLIENT_KEY).toString());
    }
    Path file = directory.resolve("kube-scheduler-config.yaml");
    Files.writeString(file, YAML.writeValueAsString(configuration));
    int port = Probes.freePort();
    Path[] serving = plane.pki().serving("kube-scheduler");
    return plane
        .start(
            NAME,
            List.of(
                binaries.binary("kube-scheduler").toString(),
                "--config=" + file,
                "--bind-address=127.0.0.1",
                "--secure-port=" + port,
                "--tls-cert-file=" + serving[0],
                "--tls-private-key-file=" + serving[1],
                "--feature-gates=" + ControlPlane.FEATURE_GATES,
                "--v=2"))
        .awaitReady(
            Probes.ok("https://127.0.0.1:" + port + "/healthz", plane.pki().trust()), READY);
  }

  private static Path write(Path directory, Secret secret, String entry) throws IOException {
    Path file = directory.resolve(entry);
    Files.write(
        file,
        Base64.getDecoder()
            .decode(secret.getData().get(entry).getBytes(StandardCharsets.US_ASCII)));
    return file;
  }
}
