package org.vnpu.cli;

/** Input a command cannot read (a missing file, a manifest that is not a pod); exit code 2. */
final class InputException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  InputException(String message) {
    super(message);
  }
}
