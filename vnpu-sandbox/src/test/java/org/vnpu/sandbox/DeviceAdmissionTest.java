package org.vnpu.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import org.junit.jupiter.api.Test;

/** A plugin's refusal is quoted as the real kubelet quoted it on the real node. */
class DeviceAdmissionTest {

  @Test
  void aRefusalReadsAsGrpcGoPrintsIt() {
    assertThat(DeviceAdmission.goError(Status.FAILED_PRECONDITION.withDescription("no lock")))
        .isEqualTo("rpc error: code = FailedPrecondition desc = no lock");
    assertThat(DeviceAdmission.goError(Status.CANCELLED.withDescription("gone")))
        .isEqualTo("rpc error: code = Canceled desc = gone");
    assertThat(DeviceAdmission.goError(Status.UNAVAILABLE.withDescription("down")))
        .isEqualTo("rpc error: code = Unavailable desc = down");
  }
}
