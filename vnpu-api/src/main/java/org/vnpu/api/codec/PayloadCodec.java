package org.vnpu.api.codec;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.payload.HandoutRecord;
import org.vnpu.api.payload.NodeHandshake;
import org.vnpu.api.payload.NodeLock;
import org.vnpu.api.payload.NodeLockSet;
import org.vnpu.api.payload.NodeRegistration;
import org.vnpu.api.payload.PendingContainers;
import org.vnpu.api.payload.PodAllocation;
import org.vnpu.api.payload.SignedAllocation;

/**
 * Encodes and decodes the payloads of vNPU's internal annotations. Every value is a JSON object
 * whose first field is {@code "v"}, the payload version; every field of the version is required;
 * unknown fields are ignored so that a newer writer can add optional fields within a version.
 * Decoding failures throw {@link MalformedPayloadException} naming the key, the field and the
 * problem. Thread-safe.
 */
public final class PayloadCodec {

  /** The payload version this build writes and reads. */
  public static final int VERSION = 1;

  private static final String VERSION_FIELD = "v";
  private static final String SIGNATURE_FIELD = "signature";
  private static final String NONCE_FIELD = "nonce";
  private static final String OFFLINE_FIELD = "offline";
  private static final String KEY_ID_FIELD = "keyId";

  private final ObjectMapper mapper =
      JsonMapper.builder()
          .addModule(new JavaTimeModule())
          .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .enable(DeserializationFeature.FAIL_ON_MISSING_CREATOR_PROPERTIES)
          .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .build();

  public String encodeRegistration(NodeRegistration registration) {
    return write(registration);
  }

  /** Reads JSON v1, or openFuyao's legacy delimited format when the value is not an object. */
  public NodeRegistration decodeRegistration(String value) {
    String key = AnnotationKeys.NODE_REGISTER;
    if (!value.stripLeading().startsWith("{")) {
      return LegacyRegistrationFormat.parse(key, value);
    }
    return read(key, value, NodeRegistration.class);
  }

  public String encodeHandshake(NodeHandshake handshake) {
    return write(handshake);
  }

  public NodeHandshake decodeHandshake(String value) {
    return read(AnnotationKeys.NODE_HANDSHAKE, value, NodeHandshake.class);
  }

  /**
   * The annotations of a node's lock Lease that carry {@code locks}: one key per entry ({@link
   * AnnotationKeys#nodeLock}) and one per hand-out record ({@link AnnotationKeys#nodeHandout}),
   * each value JSON v1.
   */
  public Map<String, String> encodeLocks(NodeLockSet locks) {
    Map<String, String> annotations = new TreeMap<>();
    for (NodeLock holder : locks.holders()) {
      annotations.put(AnnotationKeys.nodeLock(holder.podUid()), write(holder));
    }
    for (HandoutRecord handout : locks.handouts()) {
      annotations.put(AnnotationKeys.nodeHandout(handout.nonce()), write(handout));
    }
    return annotations;
  }

  /**
   * The locks a node's lock Lease carries in its annotations, decoded: entries in the order they
   * were taken, hand-outs in the order they were made; none when there are no such keys (or no
   * annotations). Other keys are not looked at.
   *
   * @throws MalformedPayloadException naming the first key whose value cannot be decoded, or names
   *     another pod or reservation than its key does
   */
  public NodeLockSet locksOf(Map<String, String> leaseAnnotations) {
    if (leaseAnnotations == null) {
      return NodeLockSet.EMPTY;
    }
    List<NodeLock> holders = new ArrayList<>();
    List<HandoutRecord> handouts = new ArrayList<>();
    for (Map.Entry<String, String> annotation : new TreeMap<>(leaseAnnotations).entrySet()) {
      String key = annotation.getKey();
      if (key.startsWith(AnnotationKeys.NODE_LOCK_PREFIX)) {
        NodeLock holder = read(key, annotation.getValue(), NodeLock.class);
        requireKey(key, AnnotationKeys.nodeLock(holder.podUid()), "pod UID " + holder.podUid());
        holders.add(holder);
      } else if (key.startsWith(AnnotationKeys.NODE_HANDOUT_PREFIX)) {
        HandoutRecord handout = read(key, annotation.getValue(), HandoutRecord.class);
        requireKey(key, AnnotationKeys.nodeHandout(handout.nonce()), "nonce " + handout.nonce());
        handouts.add(handout);
      }
    }
    holders.sort(Comparator.comparing(NodeLock::acquiredAt).thenComparing(NodeLock::podUid));
    handouts.sort(Comparator.comparing(HandoutRecord::at).thenComparing(HandoutRecord::nonce));
    return new NodeLockSet(holders, handouts);
  }

  private static void requireKey(String key, String expected, String named) {
    if (!key.equals(expected)) {
      throw new MalformedPayloadException(
          key, "the value names " + named + ", whose key is " + expected);
    }
  }

  public String encodePending(PendingContainers pending) {
    return write(pending);
  }

  public PendingContainers decodePending(String value) {
    return read(AnnotationKeys.DEVICES_TO_ALLOCATE, value, PendingContainers.class);
  }

  public String encodeAllocation(SignedAllocation signed) {
    ObjectNode tree = versionedTree(signed.allocation());
    tree.put(NONCE_FIELD, signed.nonce());
    tree.put(KEY_ID_FIELD, signed.keyId());
    tree.put(SIGNATURE_FIELD, signed.signature());
    return serialize(tree);
  }

  public SignedAllocation decodeAllocation(String value) {
    String key = AnnotationKeys.ALLOCATION;
    ObjectNode body = unversioned(key, parse(key, value));
    String nonce = text(key, body.remove(NONCE_FIELD), NONCE_FIELD, "a string");
    String keyId = text(key, body.remove(KEY_ID_FIELD), KEY_ID_FIELD, "a key ID");
    String signature = text(key, body.remove(SIGNATURE_FIELD), SIGNATURE_FIELD, "a base64 string");
    // An online pod's allocation has no "offline" field (nor had any before priorities existed).
    body.putIfAbsent(OFFLINE_FIELD, NullNode.getInstance());
    return new SignedAllocation(bind(key, body, PodAllocation.class), nonce, keyId, signature);
  }

  private static String text(String key, JsonNode value, String field, String what) {
    if (value == null || !value.isTextual()) {
      throw new MalformedPayloadException(key, "missing field " + field + " (" + what + ")");
    }
    return value.asText();
  }

  /**
   * The bytes an allocation signature covers: the compact v1 JSON of the allocation, fields in
   * declaration order. Computed from the decoded record, so white space in the annotation does not
   * matter.
   */
  public byte[] canonicalForm(PodAllocation allocation) {
    return write(allocation).getBytes(UTF_8);
  }

  private String write(Object payload) {
    return serialize(versionedTree(payload));
  }

  private ObjectNode versionedTree(Object payload) {
    ObjectNode tree = mapper.createObjectNode();
    tree.put(VERSION_FIELD, VERSION);
    tree.setAll((ObjectNode) mapper.valueToTree(payload));
    return tree;
  }

  private String serialize(ObjectNode tree) {
    try {
      return mapper.writeValueAsString(tree);
    } catch (JsonProcessingException e) {
      // A tree of plain JSON nodes always serializes.
      throw new IllegalStateException("cannot serialize payload tree", e);
    }
  }

  private <T> T read(String key, String value, Class<T> type) {
    return bind(key, unversioned(key, parse(key, value)), type);
  }

  private JsonNode parse(String key, String value) {
    try {
      return mapper.readTree(value);
    } catch (JsonProcessingException e) {
      throw new MalformedPayloadException(key, "not valid JSON: " + e.getOriginalMessage());
    }
  }

  private static ObjectNode unversioned(String key, JsonNode tree) {
    if (tree == null || !tree.isObject()) {
      throw new MalformedPayloadException(key, "expected a JSON object like {\"v\":1,...}");
    }
    ObjectNode body = ((ObjectNode) tree).deepCopy();
    JsonNode version = body.remove(VERSION_FIELD);
    if (version == null) {
      throw new MalformedPayloadException(key, "missing field v (the payload version)");
    }
    if (!version.isInt() || version.intValue() != VERSION) {
      throw new MalformedPayloadException(
          key, "unsupported version " + version + " (this build reads v" + VERSION + ")");
    }
    return body;
  }

  private <T> T bind(String key, ObjectNode body, Class<T> type) {
    try {
      return mapper.treeToValue(body, type);
    } catch (JsonProcessingException e) {
      throw new MalformedPayloadException(key, JsonProblems.describe(e));
    }
  }
}
