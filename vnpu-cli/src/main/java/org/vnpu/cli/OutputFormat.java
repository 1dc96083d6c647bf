package org.vnpu.cli;

/** How a command prints its result. */
enum OutputFormat {
  /** Aligned text for people. */
  TEXT,
  /** Text with more columns, where a command has them (as kubectl's {@code -o wide}). */
  WIDE,
  /** Pretty-printed JSON for machines. */
  JSON,
  /** YAML for machines and people. */
  YAML
}
