package org.vnpu.api;

import java.util.regex.Pattern;

/**
 * Name rules of the Kubernetes API that vNPU relies on where a name becomes part of a path: on the
 * node (a container's shim config is {@code <container>.conf}) or in a request to the API server.
 */
public final class KubernetesNames {

  /** {@code k8s.io/apimachinery/pkg/util/validation IsDNS1123Label}: container names follow it. */
  private static final Pattern DNS_1123_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");

  /** {@code IsDNS1123Subdomain}: names of most objects (claims, slices, pods) follow it. */
  private static final Pattern DNS_1123_SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  /** The longest DNS-1123 subdomain. */
  public static final int SUBDOMAIN_MAX_LENGTH = 253;

  /** The longest DNS-1123 label. */
  public static final int LABEL_MAX_LENGTH = 63;

  /** The rule, for messages. */
  public static final String LABEL_RULE =
      "must be a DNS-1123 label: at most 63 lower-case letters, digits and '-', starting and ending"
          + " with a letter or digit";

  private KubernetesNames() {}

  /** Whether {@code name} is a DNS-1123 subdomain, as an object's name must be. */
  public static boolean isSubdomain(String name) {
    return name != null
        && name.length() <= SUBDOMAIN_MAX_LENGTH
        && DNS_1123_SUBDOMAIN.matcher(name).matches();
  }

  /** Whether {@code name} is a DNS-1123 label, as a container name must be. */
  public static boolean isLabel(String name) {
    return name != null
        && name.length() <= LABEL_MAX_LENGTH
        && DNS_1123_LABEL.matcher(name).matches();
  }
}
