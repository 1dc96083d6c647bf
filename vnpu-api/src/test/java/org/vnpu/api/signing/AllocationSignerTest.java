package org.vnpu.api.signing;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.codec.Payloads;
import org.vnpu.api.payload.ContainerAllocation;
import org.vnpu.api.payload.PodAllocation;
import org.vnpu.api.payload.VnpuAssignment;

class AllocationSignerTest {

  private static final byte[] KEY = "0123456789abcdef0123456789abcdef".getBytes(UTF_8);

  private final PayloadCodec codec = new PayloadCodec();
  private final AllocationSigner signer = new AllocationSigner(KEY, codec);

  @Test
  void verifiesWhatItSigned() {
    assertThat(signer.verifies(signer.sign(Payloads.allocation()))).isTrue();
  }

  @Test
  void signatureSurvivesTheAnnotationRoundTrip() {
    String annotation = codec.encodeAllocation(signer.sign(Payloads.allocation()));
    assertThat(signer.verifies(codec.decodeAllocation(annotation))).isTrue();
  }

  @Test
  void signatureIsDeterministicForOneKeyAndAllocation() {
    assertThat(signer.sign(Payloads.allocation()).signature())
        .isEqualTo(new AllocationSigner(KEY, codec).sign(Payloads.allocation()).signature());
  }

  @Test
  void rejectsRaisedMemoryQuota() {
    SignedAllocation signed = signer.sign(Payloads.allocation());
    assertThat(signer.verifies(new SignedAllocation(withServerMemory(1 << 16), signed.signature())))
        .isFalse();
  }

  @Test
  void rejectsSignatureCopiedToAnotherPod() {
    SignedAllocation signed = signer.sign(Payloads.allocation());
    PodAllocation other =
        new PodAllocation(
            "other-uid", signed.allocation().node(), signed.allocation().containers());
    assertThat(signer.verifies(new SignedAllocation(other, signed.signature()))).isFalse();
  }

  @Test
  void rejectsSignatureCopiedToAnotherNode() {
    SignedAllocation signed = signer.sign(Payloads.allocation());
    PodAllocation other =
        new PodAllocation(signed.allocation().podUid(), "node-2", signed.allocation().containers());
    assertThat(signer.verifies(new SignedAllocation(other, signed.signature()))).isFalse();
  }

  @Test
  void rejectsSignatureMadeWithAnotherKey() {
    AllocationSigner forger =
        new AllocationSigner("fedcba9876543210fedcba9876543210".getBytes(UTF_8), codec);
    assertThat(signer.verifies(forger.sign(Payloads.allocation()))).isFalse();
  }

  @Test
  void rejectsSignatureThatIsNotBase64OrEmpty() {
    assertThat(signer.verifies(new SignedAllocation(Payloads.allocation(), "%%%"))).isFalse();
    assertThat(signer.verifies(new SignedAllocation(Payloads.allocation(), ""))).isFalse();
  }

  @Test
  void rejectsShortKeyWithAdvice() {
    assertThatThrownBy(() -> new AllocationSigner(new byte[16], codec))
        .hasMessage(
            "allocation signing key has 16 bytes: at least 32 are needed;"
                + " generate one with `head -c 32 /dev/urandom`");
  }

  private static PodAllocation withServerMemory(long memoryMiB) {
    PodAllocation original = Payloads.allocation();
    ContainerAllocation server = original.containers().get(1);
    VnpuAssignment vnpu = server.vnpus().get(0);
    VnpuAssignment raised =
        new VnpuAssignment(
            vnpu.chipIndex(),
            vnpu.dieId(),
            vnpu.chipType(),
            memoryMiB,
            vnpu.cores(),
            vnpu.mode(),
            vnpu.wholeCard(),
            vnpu.policy(),
            vnpu.template());
    return new PodAllocation(
        original.podUid(),
        original.node(),
        List.of(
            original.containers().get(0),
            new ContainerAllocation(server.name(), false, List.of(raised))));
  }
}
