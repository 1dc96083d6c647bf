package org.vnpu.dra;

import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.kubelet.KubeletPlugins;
import org.vnpu.kubelet.dra.v1.Claim;
import org.vnpu.kubelet.dra.v1.DRAPluginGrpc;
import org.vnpu.kubelet.dra.v1.Device;
import org.vnpu.kubelet.dra.v1.NodePrepareResourceResponse;
import org.vnpu.kubelet.dra.v1.NodePrepareResourcesRequest;
import org.vnpu.kubelet.dra.v1.NodePrepareResourcesResponse;
import org.vnpu.kubelet.dra.v1.NodeUnprepareResourceResponse;
import org.vnpu.kubelet.dra.v1.NodeUnprepareResourcesRequest;
import org.vnpu.kubelet.dra.v1.NodeUnprepareResourcesResponse;
import org.vnpu.kubelet.pluginregistration.InfoRequest;
import org.vnpu.kubelet.pluginregistration.PluginInfo;
import org.vnpu.kubelet.pluginregistration.RegistrationGrpc;
import org.vnpu.kubelet.pluginregistration.RegistrationStatus;
import org.vnpu.kubelet.pluginregistration.RegistrationStatusResponse;

/** The two gRPC services the kubelet calls: plugin registration and DRA v1. */
final class DraServices {

  private static final Logger LOG = LoggerFactory.getLogger(DraServices.class);

  private DraServices() {}

  /** Tells the kubelet's plugin watcher who we are and where the DRA service is. */
  static final class Registration extends RegistrationGrpc.RegistrationImplBase {
    private final DraSettings settings;

    Registration(DraSettings settings) {
      this.settings = settings;
    }

    @Override
    public void getInfo(InfoRequest request, StreamObserver<PluginInfo> response) {
      response.onNext(
          PluginInfo.newBuilder()
              .setType(KubeletPlugins.DRA_PLUGIN)
              .setName(settings.driverName())
              .setEndpoint(settings.serviceSocket().toAbsolutePath().toString())
              .addSupportedVersions(KubeletPlugins.DRA_V1)
              .build());
      response.onCompleted();
    }

    @Override
    public void notifyRegistrationStatus(
        RegistrationStatus status, StreamObserver<RegistrationStatusResponse> response) {
      if (status.getPluginRegistered()) {
        LOG.info("registered with the kubelet as DRA driver {}", settings.driverName());
      } else {
        LOG.error("the kubelet refused the registration: {}", status.getError());
      }
      response.onNext(RegistrationStatusResponse.getDefaultInstance());
      response.onCompleted();
    }
  }

  /** Prepare and unprepare, one answer per claim: its devices, or why not. */
  static final class Plugin extends DRAPluginGrpc.DRAPluginImplBase {
    private final ClaimPreparer preparer;

    Plugin(ClaimPreparer preparer) {
      this.preparer = preparer;
    }

    @Override
    public void nodePrepareResources(
        NodePrepareResourcesRequest request,
        StreamObserver<NodePrepareResourcesResponse> response) {
      NodePrepareResourcesResponse.Builder answer = NodePrepareResourcesResponse.newBuilder();
      for (Claim claim : request.getClaimsList()) {
        NodePrepareResourceResponse.Builder one = NodePrepareResourceResponse.newBuilder();
        try {
          List<PreparedDevice> devices = preparer.prepare(ref(claim));
          for (PreparedDevice device : devices) {
            Device.Builder prepared =
                Device.newBuilder()
                    .addRequestNames(device.request())
                    .setPoolName(device.pool())
                    .setDeviceName(device.device())
                    .addAllCdiDeviceIds(device.cdiIds());
            if (device.shareId() != null) {
              prepared.setShareId(device.shareId());
            }
            one.addDevices(prepared);
          }
          LOG.info("prepared claim {}/{}: {}", claim.getNamespace(), claim.getName(), devices);
        } catch (ClaimPreparer.PrepareException | IOException | RuntimeException e) {
          LOG.warn(
              "claim {}/{} not prepared: {}",
              claim.getNamespace(),
              claim.getName(),
              e.getMessage());
          one.setError(e.getMessage());
        }
        answer.putClaims(claim.getUid(), one.build());
      }
      response.onNext(answer.build());
      response.onCompleted();
    }

    @Override
    public void nodeUnprepareResources(
        NodeUnprepareResourcesRequest request,
        StreamObserver<NodeUnprepareResourcesResponse> response) {
      NodeUnprepareResourcesResponse.Builder answer = NodeUnprepareResourcesResponse.newBuilder();
      for (Claim claim : request.getClaimsList()) {
        NodeUnprepareResourceResponse.Builder one = NodeUnprepareResourceResponse.newBuilder();
        try {
          preparer.unprepare(ref(claim));
          LOG.info("unprepared claim {}/{}", claim.getNamespace(), claim.getName());
        } catch (IOException | RuntimeException e) {
          one.setError(e.getMessage());
        }
        answer.putClaims(claim.getUid(), one.build());
      }
      response.onNext(answer.build());
      response.onCompleted();
    }

    private static ClaimPreparer.ClaimRef ref(Claim claim) {
      return new ClaimPreparer.ClaimRef(claim.getNamespace(), claim.getName(), claim.getUid());
    }
  }
}
