package org.vnpu.api.signing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.security.KeyFactory;
import java.security.Signature;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.codec.Payloads;
import org.vnpu.api.payload.ContainerAllocation;
import org.vnpu.api.payload.PodAllocation;
import org.vnpu.api.payload.SignedAllocation;
import org.vnpu.api.payload.VnpuAssignment;

/**
 * Ed25519 allocation signatures: what the scheduler signs verifies with its public key alone, and
 * nothing else does — another pod, node, quota, nonce or key.
 */
class AllocationSignerTest {

  private static final SigningKey KEY = SigningKey.generate();

  private final PayloadCodec codec = new PayloadCodec();
  private final AllocationSigner signer = new AllocationSigner(KEY, codec);
  private final AllocationVerifier verifier =
      new AllocationVerifier(KeySet.of(List.of(KEY.verifying())), codec);

  private SignedAllocation signed() {
    return signer.sign(Payloads.allocation(), "bm9uY2U");
  }

  @Test
  void verifiesWhatItSignedAndNamesTheKey() {
    assertThat(verifier.verifies(signed())).isTrue();
    assertThat(signed().keyId()).isEqualTo(KEY.verifying().id()).matches("ed25519-[0-9a-f]{16}");
  }

  @Test
  void anAllocationVerifiesOnlyForThePodAndNodeItWasSignedFor() {
    SignedAllocation signed = signed();
    String pod = signed.allocation().podUid();
    String node = signed.allocation().node();

    assertThat(verifier.verifiesFor(signed, pod, node)).isTrue();
    assertThat(verifier.verifiesFor(signed, "other-uid", node)).isFalse();
    assertThat(verifier.verifiesFor(signed, pod, "other-node")).isFalse();
    PodAllocation moved = new PodAllocation(pod, "other-node", signed.allocation().containers());
    assertThat(verifier.verifiesFor(with(signed, moved, signed.nonce()), pod, "other-node"))
        .as("edited to name another node: the signature no longer holds")
        .isFalse();
  }

  @Test
  void aSignatureSeenAgainIsNotCheckedAgainButOnlyForTheSameBytesAndAStillKnownKey() {
    AtomicReference<List<VerifyingKey>> known = new AtomicReference<>(List.of(KEY.verifying()));
    AllocationVerifier remembering =
        new AllocationVerifier(id -> KeySet.of(known.get()).find(id), codec);
    SignedAllocation signed = signed();

    assertThat(remembering.verifies(signed)).isTrue();
    assertThat(remembering.verifies(codec.decodeAllocation(codec.encodeAllocation(signed))))
        .isTrue();
    assertThat(remembering.signatureChecks()).isEqualTo(1);

    // the remembered signature over other bytes: checked, and refused
    PodAllocation otherPod =
        new PodAllocation(
            "other-uid", signed.allocation().node(), signed.allocation().containers());
    assertThat(remembering.verifies(with(signed, otherPod, signed.nonce()))).isFalse();
    assertThat(remembering.signatureChecks()).isEqualTo(2);
    // the key left the set: the remembered signature no longer verifies
    known.set(List.of());
    assertThat(remembering.verifies(signed)).isFalse();
  }

  @Test
  void theMemoryOfVerifiedSignaturesIsBounded() {
    for (int i = 0; i <= AllocationVerifier.REMEMBERED; i++) {
      assertThat(verifier.verifies(signer.sign(Payloads.allocation(), "n" + i))).isTrue();
    }
    assertThat(verifier.remembered()).isBetween(1, AllocationVerifier.REMEMBERED);
  }

  @Test
  void signatureSurvivesTheAnnotationRoundTrip() {
    String annotation = codec.encodeAllocation(signed());
    assertThat(verifier.verifies(codec.decodeAllocation(annotation))).isTrue();
  }

  @Test
  void aStoredKeyDecodesToTheSameKey() {
    SigningKey stored = SigningKey.decode(KEY.pkcs8(), KEY.verifying().encoded());
    assertThat(stored.verifying().id()).isEqualTo(KEY.verifying().id());
    assertThat(
            verifier.verifies(new AllocationSigner(stored, codec).sign(Payloads.allocation(), "n")))
        .isTrue();
    assertThatThrownBy(() -> SigningKey.decode(new byte[] {1, 2, 3}, KEY.verifying().encoded()))
        .hasMessageStartingWith("not an Ed25519 private key");
  }

  @Test
  void rejectsRaisedMemoryQuota() {
    SignedAllocation signed = signed();
    assertThat(verifier.verifies(with(signed, withServerMemory(1 << 16), signed.nonce())))
        .isFalse();
  }

  @Test
  void rejectsSignatureCopiedToAnotherPodOrNode() {
    SignedAllocation signed = signed();
    PodAllocation otherPod =
        new PodAllocation(
            "other-uid", signed.allocation().node(), signed.allocation().containers());
    PodAllocation otherNode =
        new PodAllocation(signed.allocation().podUid(), "node-2", signed.allocation().containers());
    assertThat(verifier.verifies(with(signed, otherPod, signed.nonce()))).isFalse();
    assertThat(verifier.verifies(with(signed, otherNode, signed.nonce()))).isFalse();
  }

  @Test
  void rejectsAnotherNonce() {
    SignedAllocation signed = signed();
    assertThat(verifier.verifies(with(signed, signed.allocation(), "another-reservation")))
        .isFalse();
  }

  @Test
  void rejectsSignatureMadeWithAnotherKeyEvenUnderThisKeysId() {
    AllocationSigner forger = new AllocationSigner(SigningKey.generate(), codec);
    SignedAllocation forged = forger.sign(Payloads.allocation(), "n");
    assertThat(verifier.verifies(forged)).as("unknown key").isFalse();
    assertThat(
            verifier.verifies(
                new SignedAllocation(
                    forged.allocation(), forged.nonce(), KEY.verifying().id(), forged.signature())))
        .as("a forged signature claiming the real key's ID")
        .isFalse();
    assertThat(verifier.knows(forged.keyId())).isFalse();
  }

  @Test
  void rejectsSignatureThatIsNotBase64OrEmpty() {
    SignedAllocation signed = signed();
    for (String bad : List.of("%%%", "")) {
      assertThat(
              verifier.verifies(
                  new SignedAllocation(signed.allocation(), signed.nonce(), signed.keyId(), bad)))
          .isFalse();
    }
  }

  private static SignedAllocation with(
      SignedAllocation signed, PodAllocation allocation, String nonce) {
    return new SignedAllocation(allocation, nonce, signed.keyId(), signed.signature());
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

  @Test
  void itsSignatureIsTheVeryOneTheJdkMakesForTheSameKeyAndBytes() throws Exception {
    SignedAllocation signed = signed();
    Signature jdk = Signature.getInstance("Ed25519");
    jdk.initSign(
        KeyFactory.getInstance("Ed25519").generatePrivate(new PKCS8EncodedKeySpec(KEY.pkcs8())));
    jdk.update(AllocationSigner.signedBytes(codec, signed.allocation(), signed.nonce()));

    assertThat(Base64.getDecoder().decode(signed.signature()))
        .as("Ed25519 is deterministic: the device plugins' JDK verifies what BouncyCastle signs")
        .isEqualTo(jdk.sign());
  }
}
