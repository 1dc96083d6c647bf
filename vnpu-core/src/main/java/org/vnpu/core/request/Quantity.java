package org.vnpu.core.request;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Kubernetes resource quantity ({@code 500m}, {@code 2}, {@code 1.5Gi}, {@code 1e3}): a decimal
 * number with a decimal or binary SI suffix or a decimal exponent, as the API server accepts it.
 *
 * @param value the amount in base units (cores, bytes)
 */
public record Quantity(BigDecimal value) {

  private static final Pattern FORM =
      Pattern.compile("([+-]?(?:\\d+\\.?\\d*|\\.\\d+))(([eE][+-]?\\d+)|[a-zA-Z]*)");

  private static final Map<String, BigDecimal> SUFFIXES =
      Map.ofEntries(
          Map.entry("n", new BigDecimal("1e-9")),
          Map.entry("u", new BigDecimal("1e-6")),
          Map.entry("m", new BigDecimal("1e-3")),
          Map.entry("", BigDecimal.ONE),
          Map.entry("k", new BigDecimal("1e3")),
          Map.entry("M", new BigDecimal("1e6")),
          Map.entry("G", new BigDecimal("1e9")),
          Map.entry("T", new BigDecimal("1e12")),
          Map.entry("P", new BigDecimal("1e15")),
          Map.entry("E", new BigDecimal("1e18")),
          Map.entry("Ki", BigDecimal.valueOf(1L << 10)),
          Map.entry("Mi", BigDecimal.valueOf(1L << 20)),
          Map.entry("Gi", BigDecimal.valueOf(1L << 30)),
          Map.entry("Ti", BigDecimal.valueOf(1L << 40)),
          Map.entry("Pi", BigDecimal.valueOf(1L << 50)),
          Map.entry("Ei", BigDecimal.valueOf(1L << 60)));

  private static final BigDecimal MEBIBYTE = BigDecimal.valueOf(1L << 20);

  /**
   * Longest text read: the API server's own limit on a quantity's digits is far below it, so longer
   * text is hostile, and bounding it keeps the pattern's backtracking short.
   */
  static final int MAX_LENGTH = 64;

  /** Largest decimal exponent read: 10^18 already exceeds every resource a node has. */
  static final int MAX_EXPONENT = 18;

  /**
   * The quantity written as {@code text}. Bounded before any arithmetic: a long text or a huge
   * exponent is refused, never materialised.
   *
   * @throws IllegalArgumentException naming the text when it is not a quantity or is out of bounds
   */
  public static Quantity parse(String text) {
    String stripped = text.strip();
    if (stripped.length() > MAX_LENGTH) {
      throw new IllegalArgumentException(
          "\""
              + stripped.substring(0, 20)
              + "...\" ("
              + stripped.length()
              + " characters) is not a quantity: at most "
              + MAX_LENGTH
              + " characters");
    }
    Matcher matcher = FORM.matcher(stripped);
    BigDecimal unit = matcher.matches() ? unit(text, matcher) : null;
    if (unit == null) {
      throw new IllegalArgumentException(
          "\""
              + text
              + "\" is not a quantity (a number with an optional suffix such as m, Mi, Gi)");
    }
    return new Quantity(new BigDecimal(matcher.group(1)).multiply(unit));
  }

  private static BigDecimal unit(String text, Matcher matcher) {
    String exponent = matcher.group(3);
    if (exponent == null) {
      return SUFFIXES.get(matcher.group(2));
    }
    String digits = exponent.substring(1).replaceFirst("^[+-]", "").replaceFirst("^0+(?=\\d)", "");
    if (digits.length() > 2 || Integer.parseInt(digits) > MAX_EXPONENT) {
      throw new IllegalArgumentException(
          "\"" + text + "\" is not a quantity vNPU reads: its exponent is beyond ±" + MAX_EXPONENT);
    }
    return BigDecimal.ONE.scaleByPowerOfTen(Integer.parseInt(exponent.substring(1)));
  }

  /** Thousandths of the base unit, rounded up (CPU in millicores). */
  public long milliRoundedUp() {
    return value.movePointRight(3).setScale(0, RoundingMode.CEILING).longValueExact();
  }

  /** Mebibytes, rounded up (memory in MiB). */
  public long mebibytesRoundedUp() {
    return value.divide(MEBIBYTE, 0, RoundingMode.CEILING).longValueExact();
  }
}
