package org.vnpu.core.request;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * What the device plugin can tell about a pod from the kubelet's Allocate calls: the vNPU counts
 * its containers ask for, and a digest of everything else its request says. Two pods with equal
 * digests are interchangeable: either may receive the other's allocation, because each allocation
 * satisfies both requests.
 *
 * @param digest the first 16 hex digits of the SHA-256 of the pod's options and its vNPU
 *     containers' requests, in order (name, init, count, cores, memory, types, policy)
 * @param counts the distinct vNPU counts of its vNPU containers, ascending
 */
public record HandoutShape(String digest, List<Integer> counts) {

  public HandoutShape {
    counts = List.copyOf(counts);
  }

  /** The shape of {@code request}, which asks for vNPUs. */
  public static HandoutShape of(PodRequest request) {
    StringBuilder text = new StringBuilder(request.options().toString());
    for (ContainerRequest container : request.containers()) {
      text.append('\n').append(container);
    }
    List<Integer> counts =
        request.containers().stream().map(ContainerRequest::count).distinct().sorted().toList();
    return new HandoutShape(HexFormat.of().formatHex(sha256(text.toString()), 0, 8), counts);
  }

  private static byte[] sha256(String text) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(text.getBytes(UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }
}
