package org.vnpu.cli;

/**
 * Where a command's output goes and what suits it there: bars and colour only for a person at a
 * terminal, and colour only when {@code NO_COLOR} is unset or empty (no-color.org).
 *
 * @param attached whether the output is a terminal
 * @param colour whether to colour it
 */
record Terminal(boolean attached, boolean colour) {

  /** Plain output: a file, a pipe, a log or a test. */
  static final Terminal NONE = new Terminal(false, false);

  private static final String RESET = "\u001b[0m";

  /** ANSI colours for outcomes. */
  enum Colour {
    GREEN("\u001b[32m"),
    YELLOW("\u001b[33m"),
    RED("\u001b[31m");

    private final String code;

    Colour(String code) {
      this.code = code;
    }
  }

  /**
   * This process's: Java 17 tells only whether it has an interactive console (standard input and
   * output both a terminal), which is how a person runs a command; {@code TERM=dumb} (an editor's
   * shell) counts as none.
   */
  static Terminal detect() {
    return of(System.console() != null, System.getenv("TERM"), System.getenv("NO_COLOR"));
  }

  /** With an interactive console or not, and these values of {@code TERM} and {@code NO_COLOR}. */
  static Terminal of(boolean console, String term, String noColour) {
    boolean attached = console && !"dumb".equals(term);
    return new Terminal(attached, attached && (noColour == null || noColour.isEmpty()));
  }

  /** {@code text} in {@code colour} where colour is wanted, else as it is. */
  String paint(String text, Colour colour) {
    return this.colour ? colour.code + text + RESET : text;
  }

  /**
   * A bar of {@code width} cells filled to {@code fraction} (0..1), e.g. {@code [##### ]}, as htop
   * draws them; empty when the output is not a terminal.
   */
  String bar(double fraction, int width) {
    if (!attached) {
      return "";
    }
    int filled = (int) Math.round(Math.max(0, Math.min(1, fraction)) * width);
    String cells = "#".repeat(filled);
    Colour colour = fraction >= 0.9 ? Colour.RED : fraction >= 0.6 ? Colour.YELLOW : Colour.GREEN;
    return "[" + paint(cells, colour) + " ".repeat(width - filled) + "]";
  }
}
