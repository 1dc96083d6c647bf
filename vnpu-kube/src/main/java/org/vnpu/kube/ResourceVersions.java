package org.vnpu.kube;

/**
 * Resource versions compared as Kubernetes defines them for built-in types since 1.35 (KEP-5504,
 * "Comparable Resource Version"): a version is a decimal integer without leading zeros, and the
 * greater integer is the later write. A version that is not so formed (an API server that is not
 * backed by etcd) compares with nothing, so a caller falls back to treating it as opaque.
 */
final class ResourceVersions {

  private ResourceVersions() {}

  /**
   * Whether {@code version} is known to be older than {@code than}: false when either is not a
   * well-formed version, or they are equal.
   */
  static boolean isOlder(String version, String than) {
    if (!wellFormed(version) || !wellFormed(than)) {
      return false;
    }
    return version.length() != than.length()
        ? version.length() < than.length()
        : version.compareTo(than) < 0;
  }

  private static boolean wellFormed(String version) {
    return version != null
        && !version.isEmpty()
        && version.charAt(0) != '0'
        && version.chars().allMatch(c -> c >= '0' && c <= '9');
  }
}
