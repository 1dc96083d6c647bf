package org.vnpu.scheduler;

/**
 * How one node answers a filter: the pod fits (reason null), or why not, and whether waiting helps
 * ({@code unresolvable}: no change of the node's load makes it fit).
 */
public record Verdict(String reason, boolean unresolvable) {

  static final Verdict FITS = new Verdict(null, false);

  public boolean fits() {
    return reason == null;
  }
}
