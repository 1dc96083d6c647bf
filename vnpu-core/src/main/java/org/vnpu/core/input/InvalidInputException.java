package org.vnpu.core.input;

/** An input file that cannot be used; the message names the file, the place and the problem. */
public final class InvalidInputException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public InvalidInputException(String message) {
    super(message);
  }

  public InvalidInputException(String message, Throwable cause) {
    super(message, cause);
  }
}
