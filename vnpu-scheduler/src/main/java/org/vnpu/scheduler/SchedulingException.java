package org.vnpu.scheduler;

/** A pod the scheduler cannot place, reserve or bind; the message says why. */
public final class SchedulingException extends Exception {

  private static final long serialVersionUID = 1L;

  public SchedulingException(String message) {
    super(message);
  }
}
