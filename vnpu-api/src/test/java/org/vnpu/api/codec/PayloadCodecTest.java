package org.vnpu.api.codec;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.Priority;
import org.vnpu.api.payload.NodeLock;
import org.vnpu.api.payload.NodeLockSet;
import org.vnpu.api.payload.OfflineWork;
import org.vnpu.api.payload.PodAllocation;
import org.vnpu.api.payload.SignedAllocation;
import org.vnpu.testkit.GoldenFile;

class PayloadCodecTest {

  private final PayloadCodec codec = new PayloadCodec();

  @Test
  void registrationMatchesGoldenFile() throws IOException {
    String encoded = codec.encodeRegistration(Payloads.registration());
    GoldenFile.assertMatches("node-vnpu-register.json", encoded);
    assertThat(codec.decodeRegistration(GoldenFile.read("node-vnpu-register.json")))
        .isEqualTo(Payloads.registration());
  }

  @Test
  void handshakeMatchesGoldenFile() throws IOException {
    GoldenFile.assertMatches(
        "node-vnpu-handshake.json", codec.encodeHandshake(Payloads.handshake()));
    assertThat(codec.decodeHandshake(GoldenFile.read("node-vnpu-handshake.json")))
        .isEqualTo(Payloads.handshake());
  }

  @Test
  void eachLockEntryAndHandoutIsAnAnnotationOfItsOwnMatchingGoldenFiles() throws IOException {
    NodeLockSet locks = Payloads.lock();
    Map<String, String> annotations = codec.encodeLocks(locks);

    assertThat(annotations)
        .containsOnlyKeys(
            "huawei.com/vnpu-node-lock.7c1d-uid", AnnotationKeys.nodeHandout("b3RoZXI"));
    GoldenFile.assertMatches(
        "vnpu-node-lock.json", annotations.get("huawei.com/vnpu-node-lock.7c1d-uid"));
    GoldenFile.assertMatches(
        "vnpu-node-handout.json", annotations.get(AnnotationKeys.nodeHandout("b3RoZXI")));
    Map<String, String> golden =
        Map.of(
            "huawei.com/vnpu-node-lock.7c1d-uid",
            GoldenFile.read("vnpu-node-lock.json"),
            AnnotationKeys.nodeHandout("b3RoZXI"),
            GoldenFile.read("vnpu-node-handout.json"));
    assertThat(codec.locksOf(golden)).isEqualTo(locks);
  }

  @Test
  void aNodesLocksAreReadFromItsAnnotationsAndNoneWithout() {
    Map<String, String> annotations = new HashMap<>(codec.encodeLocks(Payloads.lock()));
    annotations.put("other", "x");

    assertThat(codec.locksOf(annotations)).isEqualTo(Payloads.lock());
    assertThat(codec.locksOf(Map.of("other", "x"))).isEqualTo(NodeLockSet.EMPTY);
    assertThat(codec.locksOf(null)).isEqualTo(NodeLockSet.EMPTY);
    assertThatThrownBy(() -> codec.locksOf(Map.of("huawei.com/vnpu-node-lock.u", "{")))
        .isInstanceOf(MalformedPayloadException.class)
        .hasMessageContaining("huawei.com/vnpu-node-lock.u");
  }

  @Test
  void anEntryUnderAnotherPodsKeyIsMalformed() {
    String entry = codec.encodeLocks(Payloads.lock()).get("huawei.com/vnpu-node-lock.7c1d-uid");

    assertThatThrownBy(() -> codec.locksOf(Map.of("huawei.com/vnpu-node-lock.other-uid", entry)))
        .isInstanceOf(MalformedPayloadException.class)
        .hasMessage(
            "huawei.com/vnpu-node-lock.other-uid: the value names pod UID 7c1d-uid, whose key is"
                + " huawei.com/vnpu-node-lock.7c1d-uid");
  }

  @Test
  void entriesAreReadInTheOrderTheyWereTakenWhateverTheirKeys() {
    NodeLock later = lockOf("a-uid", Payloads.T0.plusSeconds(2));
    NodeLock earlier = lockOf("z-uid", Payloads.T0);

    assertThat(
            codec
                .locksOf(codec.encodeLocks(new NodeLockSet(List.of(later, earlier), List.of())))
                .holders())
        .containsExactly(earlier, later);
  }

  @Test
  void aPodUidThatCannotEndAKeyIsDigested() {
    assertThat(AnnotationKeys.nodeLock("0f7c8a4e-6b1d-4e0a-9a9e-2b8f3c1d5e6f"))
        .isEqualTo("huawei.com/vnpu-node-lock.0f7c8a4e-6b1d-4e0a-9a9e-2b8f3c1d5e6f");
    assertThat(AnnotationKeys.nodeLock("uid/with/slashes-"))
        .matches("huawei\\.com/vnpu-node-lock\\.h[0-9a-f]{32}");
    assertThat(AnnotationKeys.nodeHandout("-_nonce_-"))
        .matches("huawei\\.com/vnpu-node-handout\\.[0-9a-f]{32}");
  }

  private static NodeLock lockOf(String uid, Instant at) {
    return new NodeLock(
        uid, "ns", "p-" + uid, at, at.plusSeconds(60), "n-" + uid, "s", List.of(1), 0);
  }

  @Test
  void pendingContainersMatchGoldenFile() throws IOException {
    GoldenFile.assertMatches(
        "vnpu-devices-to-allocate.json", codec.encodePending(Payloads.pending()));
    assertThat(codec.decodePending(GoldenFile.read("vnpu-devices-to-allocate.json")))
        .isEqualTo(Payloads.pending());
  }

  @Test
  void signedAllocationMatchesGoldenFile() throws IOException {
    SignedAllocation signed =
        new SignedAllocation(
            Payloads.allocation(), "bm9uY2U", "ed25519-0123456789abcdef", "c2lnbmF0dXJl");
    GoldenFile.assertMatches("vnpu-ids-new.json", codec.encodeAllocation(signed));
    assertThat(codec.decodeAllocation(GoldenFile.read("vnpu-ids-new.json"))).isEqualTo(signed);
  }

  @Test
  void decodingToleratesWhiteSpaceAndUnknownFields() {
    String lock =
        "{ \"v\": 1, \"podUid\": \"u\", \"podNamespace\": \"n\","
            + " \"podName\": \"p\",\n \"acquiredAt\": \"2026-11-29T15:00:00Z\","
            + " \"expiresAt\": \"2026-11-29T15:05:00Z\", \"nonce\": \"bm9uY2U\","
            + " \"shape\": \"s\", \"counts\": [1], \"handedOut\": 0, \"addedLater\": true }";
    assertThat(codec.locksOf(Map.of("huawei.com/vnpu-node-lock.u", lock)).holders().get(0).podUid())
        .isEqualTo("u");
  }

  @Test
  void anOfflinePodsAllocationCarriesItsCapAndAnOnlinePodsHasNoOfflineField() {
    PodAllocation online = Payloads.allocation();
    PodAllocation offline =
        new PodAllocation(online.podUid(), online.node(), online.containers(), new OfflineWork(2));
    String encoded = codec.encodeAllocation(new SignedAllocation(offline, "n", "k", "x"));
    assertThat(encoded).contains("\"offline\":{\"maxKernelsInFlight\":2}");
    assertThat(codec.decodeAllocation(encoded).allocation()).isEqualTo(offline);
    assertThat(offline.priority()).isEqualTo(Priority.OFFLINE);
    // The golden file above is an allocation signed before priorities: its bytes are unchanged.
    assertThat(new String(codec.canonicalForm(online), UTF_8)).doesNotContain("offline");
  }

  @Test
  void rejectsUnknownVersionNamingKeyAndVersion() {
    assertThatThrownBy(() -> codec.decodeHandshake("{\"v\":2,\"state\":\"reported\"}"))
        .isInstanceOf(MalformedPayloadException.class)
        .hasMessage("huawei.com/node-vnpu-handshake: unsupported version 2 (this build reads v1)");
  }

  @Test
  void rejectsMissingVersion() {
    assertThatThrownBy(() -> codec.decodePending("{\"containers\":[]}"))
        .hasMessage("huawei.com/vnpu-devices-to-allocate: missing field v (the payload version)");
  }

  @Test
  void rejectsValueThatIsNotJson() {
    assertThatThrownBy(() -> codec.decodeHandshake("{\"v\":1,"))
        .isInstanceOf(MalformedPayloadException.class)
        .hasMessageStartingWith("huawei.com/node-vnpu-handshake: not valid JSON: ");
  }

  @Test
  void rejectsJsonThatIsNotAnObject() {
    assertThatThrownBy(() -> codec.locksOf(Map.of("huawei.com/vnpu-node-lock.u", "[1,2]")))
        .hasMessage("huawei.com/vnpu-node-lock.u: expected a JSON object like {\"v\":1,...}");
  }

  @Test
  void rejectsMissingFieldNamingIt() {
    String value =
        codec.encodeRegistration(Payloads.registration()).replace("\"dieId\":\"VDIE-0a1c\",", "");
    assertThatThrownBy(() -> codec.decodeRegistration(value))
        .hasMessageContaining("huawei.com/node-vnpu-register: ")
        .hasMessageContaining("'dieId'")
        .hasMessageContaining("(at chips[1]");
  }

  @Test
  void rejectsInvalidFieldValueNamingTheRule() {
    String value =
        codec
            .encodeRegistration(Payloads.registration())
            .replace("\"memoryMiB\":65536", "\"memoryMiB\":0");
    assertThatThrownBy(() -> codec.decodeRegistration(value))
        .hasMessageStartingWith("huawei.com/node-vnpu-register: memoryMiB=0 is out of range 1..");
  }

  @Test
  void rejectsUnknownEnumValue() {
    String value = codec.encodeHandshake(Payloads.handshake()).replace("reported", "asleep");
    assertThatThrownBy(() -> codec.decodeHandshake(value))
        .hasMessageContaining("huawei.com/node-vnpu-handshake: ")
        .hasMessageContaining("asleep")
        .hasMessageContaining("(at state)");
  }

  @Test
  void rejectsAllocationWithoutSignature() {
    String value =
        codec
            .encodeAllocation(new SignedAllocation(Payloads.allocation(), "n", "k", "x"))
            .replace(",\"signature\":\"x\"", "");
    assertThatThrownBy(() -> codec.decodeAllocation(value))
        .hasMessage("huawei.com/vnpu-ids-new: missing field signature (a base64 string)");
  }

  @Test
  void rejectsAllocationWithTwoVnpusOnOneChip() throws IOException {
    ObjectNode tree =
        (ObjectNode)
            new ObjectMapper()
                .readTree(
                    codec.encodeAllocation(
                        new SignedAllocation(Payloads.allocation(), "n", "k", "x")));
    ArrayNode vnpus = (ArrayNode) tree.get("containers").get(1).get("vnpus");
    vnpus.add(vnpus.get(0).deepCopy());
    String value = tree.toString();
    assertThatThrownBy(() -> codec.decodeAllocation(value))
        .hasMessageContaining("container server has two vNPUs on chip 0");
  }

  @Test
  void rejectsAllocationWhoseContainerNameIsNoLabel() throws IOException {
    ObjectNode tree =
        (ObjectNode)
            new ObjectMapper()
                .readTree(
                    codec.encodeAllocation(
                        new SignedAllocation(Payloads.allocation(), "n", "k", "x")));
    ((ObjectNode) tree.get("containers").get(1)).put("name", "../../../etc/passwd");
    String value = tree.toString();
    assertThatThrownBy(() -> codec.decodeAllocation(value))
        .hasMessageContaining("container name \"../../../etc/passwd\" must be a DNS-1123 label");
  }

  @Test
  void rejectsLockThatExpiresBeforeItIsTaken() {
    Map<String, String> annotations = new HashMap<>(codec.encodeLocks(Payloads.lock()));
    annotations.replaceAll(
        (key, value) -> value.replace("2026-11-29T15:05:00Z", "2026-11-29T14:00:00Z"));
    assertThatThrownBy(() -> codec.locksOf(annotations))
        .hasMessageContaining("expiresAt 2026-11-29T14:00:00Z must be after acquiredAt");
  }
}
