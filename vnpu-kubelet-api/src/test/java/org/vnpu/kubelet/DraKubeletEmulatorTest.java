package org.vnpu.kubelet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Server;
import io.grpc.stub.StreamObserver;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vnpu.kubelet.dra.v1.Claim;
import org.vnpu.kubelet.dra.v1.DRAPluginGrpc;
import org.vnpu.kubelet.dra.v1.NodePrepareResourceResponse;
import org.vnpu.kubelet.dra.v1.NodePrepareResourcesRequest;
import org.vnpu.kubelet.dra.v1.NodePrepareResourcesResponse;
import org.vnpu.kubelet.pluginregistration.InfoRequest;
import org.vnpu.kubelet.pluginregistration.PluginInfo;
import org.vnpu.kubelet.pluginregistration.RegistrationGrpc;
import org.vnpu.kubelet.pluginregistration.RegistrationStatus;
import org.vnpu.kubelet.pluginregistration.RegistrationStatusResponse;

/**
 * The DRA emulator checks a plugin's prepare answer against the claims it asked for, as the
 * kubelet's DRA manager does ({@code pkg/kubelet/cm/dra/manager.go}, {@code prepareResources}): a
 * result for a claim it did not ask for, or a claim left out, fails the prepare.
 */
class DraKubeletEmulatorTest {

  private static final String DRIVER = "fake.example.com";
  private static final Claim ASKED =
      Claim.newBuilder().setNamespace("default").setName("claim").setUid("uid-asked").build();

  @TempDir Path directory;
  private DraKubeletEmulator kubelet;
  private Server registration;
  private Server plugin;

  @AfterEach
  void stop() {
    kubelet.close();
    registration.shutdownNow();
    plugin.shutdownNow();
  }

  /** A plugin whose prepare answer is what {@code answer} makes of the right one. */
  private void start(UnaryOperator<NodePrepareResourcesResponse.Builder> answer) {
    kubelet = new DraKubeletEmulator(directory.resolve("registry"), driver -> {}).start();
    Path endpoint = directory.resolve("plugin.sock");
    plugin =
        UnixSockets.serve(
            endpoint,
            new DRAPluginGrpc.DRAPluginImplBase() {
              @Override
              public void nodePrepareResources(
                  NodePrepareResourcesRequest request,
                  StreamObserver<NodePrepareResourcesResponse> response) {
                NodePrepareResourcesResponse.Builder right =
                    NodePrepareResourcesResponse.newBuilder();
                request
                    .getClaimsList()
                    .forEach(
                        claim ->
                            right.putClaims(
                                claim.getUid(), NodePrepareResourceResponse.getDefaultInstance()));
                response.onNext(answer.apply(right).build());
                response.onCompleted();
              }
            });
    registration =
        UnixSockets.serve(
            directory.resolve("registry").resolve(DRIVER + "-reg.sock"),
            new RegistrationGrpc.RegistrationImplBase() {
              @Override
              public void getInfo(InfoRequest request, StreamObserver<PluginInfo> response) {
                response.onNext(
                    PluginInfo.newBuilder()
                        .setType("DRAPlugin")
                        .setName(DRIVER)
                        .setEndpoint(endpoint.toString())
                        .addSupportedVersions("v1.DRAPlugin")
                        .build());
                response.onCompleted();
              }

              @Override
              public void notifyRegistrationStatus(
                  RegistrationStatus request, StreamObserver<RegistrationStatusResponse> response) {
                response.onNext(RegistrationStatusResponse.getDefaultInstance());
                response.onCompleted();
              }
            });
    kubelet.awaitPlugin(DRIVER, Duration.ofSeconds(5));
  }

  @Test
  void anAnswerForTheClaimsAskedIsTaken() {
    start(right -> right);

    assertThat(kubelet.prepare(DRIVER, List.of(ASKED)).getClaimsMap())
        .containsOnlyKeys("uid-asked");
  }

  @Test
  void aResultForAClaimNotAskedForFailsThePrepare() {
    start(right -> right.putClaims("uid-ghost", NodePrepareResourceResponse.getDefaultInstance()));

    assertThatThrownBy(() -> kubelet.prepare(DRIVER, List.of(ASKED)))
        .hasMessage("NodePrepareResources returned result for unknown claim UID uid-ghost");
  }

  @Test
  void aClaimLeftOutFailsThePrepare() {
    start(right -> right.removeClaims("uid-asked"));

    assertThatThrownBy(() -> kubelet.prepare(DRIVER, List.of(ASKED)))
        .hasMessage("NodePrepareResources left out 1 claims");
  }
}
