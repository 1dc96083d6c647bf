package org.vnpu.core.engine;

/**
 * Allocated AI Core of a node, in percent of its chips' compute: above {@code high} a node runs
 * hot, below {@code low} it may take offline pods moved off hot nodes.
 */
public record Watermarks(double high, double low) {

  public Watermarks {
    if (!(0 <= low && low < high && high <= 100)) {
      throw new IllegalArgumentException(
          "watermarks must satisfy 0 <= low < high <= 100, got low " + low + ", high " + high);
    }
  }
}
