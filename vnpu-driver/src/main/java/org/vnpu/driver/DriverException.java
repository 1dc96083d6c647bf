package org.vnpu.driver;

/** A driver call that failed; the message names the call, the device and the driver's reason. */
public final class DriverException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public DriverException(String message) {
    super(message);
  }

  public DriverException(String message, Throwable cause) {
    super(message, cause);
  }
}
