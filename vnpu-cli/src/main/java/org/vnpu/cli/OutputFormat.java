package org.vnpu.cli;

/** How a command prints its result. */
enum OutputFormat {
  /** Aligned text for people. */
  TEXT,
  /** Pretty-printed JSON for machines. */
  JSON
}
