package org.vnpu.sandbox;

/** Why the kubelet did not admit a pod: its status reason and message. */
final class NotAdmitted extends Exception {
  private static final long serialVersionUID = 1L;
  final String reason;

  NotAdmitted(String reason, String message) {
    super(message);
    this.reason = reason;
  }
}
