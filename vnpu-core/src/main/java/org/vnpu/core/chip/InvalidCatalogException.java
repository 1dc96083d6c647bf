package org.vnpu.core.chip;

/** A chip catalog file that cannot be read; the message names the file and the problem. */
public final class InvalidCatalogException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public InvalidCatalogException(String source, String problem, Throwable cause) {
    super("chip catalog " + source + ": " + problem, cause);
  }
}
