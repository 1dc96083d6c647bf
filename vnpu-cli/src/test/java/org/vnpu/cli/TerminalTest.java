package org.vnpu.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Bars and colour only for a person at a terminal; NO_COLOR and TERM=dumb are honoured. */
class TerminalTest {

  @Test
  void colourOnlyOnATerminalWithoutNoColour() {
    assertThat(Terminal.of(true, "xterm-256color", null)).isEqualTo(new Terminal(true, true));
    assertThat(Terminal.of(true, "xterm", "")).isEqualTo(new Terminal(true, true));
    assertThat(Terminal.of(true, "xterm", "1")).isEqualTo(new Terminal(true, false));
    assertThat(Terminal.of(true, "dumb", null)).isEqualTo(Terminal.NONE);
    assertThat(Terminal.of(false, "xterm", null)).isEqualTo(Terminal.NONE);
  }

  @Test
  void aBarIsFilledToItsFractionAndColouredByHowFullItIs() {
    assertThat(new Terminal(true, false).bar(0.25, 8)).isEqualTo("[##      ]");
    assertThat(new Terminal(true, false).bar(1.7, 4)).isEqualTo("[####]");
    assertThat(new Terminal(true, true).bar(0.95, 2)).isEqualTo("[\u001b[31m##\u001b[0m]");
    assertThat(Terminal.NONE.bar(0.5, 10)).isEmpty();
    assertThat(Terminal.NONE.paint("fail", Terminal.Colour.RED)).isEqualTo("fail");
  }
}
