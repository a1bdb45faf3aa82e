package io.inferlens.api;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parsing of durations and byte sizes as written on the command line.
 *
 * <p>Durations follow Prometheus's duration syntax ({@code 30d}, {@code 12h}, {@code 90m},
 * {@code 1h30m}, {@code 2w}, {@code 1y} = 365 days); byte sizes accept a plain number of bytes or
 * a binary suffix ({@code KiB}, {@code MiB}, {@code GiB}; {@code KB}/{@code MB}/{@code GB} are read
 * as the same powers of 1024, as Prometheus does for {@code --storage.tsdb.retention.size}).
 */
public final class Units {

  private static final Pattern DURATION_PART = Pattern.compile("(\\d+)(ms|y|w|d|h|m|s)");
  private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*([kmg]i?b?|b)?");

  private Units() {}

  /**
   * @param text a Prometheus-style duration such as {@code 30d} or {@code 1h30m}
   * @return the duration in milliseconds, &gt; 0
   * @throws IllegalArgumentException if the text is not a positive duration; the message quotes it
   */
  public static long parseDurationMs(String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    Matcher m = DURATION_PART.matcher(t);
    long total = 0;
    int pos = 0;
    while (m.find() && m.start() == pos) {
      long n = Long.parseLong(m.group(1));
      long unit;
      switch (m.group(2)) {
        case "ms": unit = 1L; break;
        case "s": unit = 1_000L; break;
        case "m": unit = 60_000L; break;
        case "h": unit = 3_600_000L; break;
        case "d": unit = 86_400_000L; break;
        case "w": unit = 7 * 86_400_000L; break;
        case "y": unit = 365 * 86_400_000L; break;
        default: throw new AssertionError(m.group(2));
      }
      total = Math.addExact(total, Math.multiplyExact(n, unit));
      pos = m.end();
    }
    if (pos != t.length() || pos == 0 || total <= 0) {
      throw new IllegalArgumentException(
          "invalid duration \"" + text + "\": use e.g. 30d, 12h, 90m, 1h30m");
    }
    return total;
  }

  /**
   * {@link #parseDurationMs} for a named option or parameter, so the message says which.
   *
   * @param name the option or parameter, e.g. {@code --retention} or {@code step}
   * @param text its value
   * @return the duration in milliseconds, &gt; 0
   * @throws IllegalArgumentException naming {@code name} if the text is not a positive duration
   */
  public static long parseDurationMs(String name, String text) {
    try {
      return parseDurationMs(text);
    } catch (IllegalArgumentException | ArithmeticException e) {
      throw new IllegalArgumentException(name + ": invalid duration \"" + text
          + "\": must be positive, e.g. 30d, 12h, 90m, 1h30m");
    }
  }

  /**
   * As {@link #parseDurationMs(String, String)}, also accepting {@code 0} (or {@code 0s}) for
   * settings where zero turns something off.
   *
   * @param name the option, e.g. {@code --eval-interval}
   * @param text its value
   * @param zeroAllowed whether 0 is accepted
   * @return the duration in milliseconds, &ge; 0
   * @throws IllegalArgumentException naming {@code name} if the text is not a duration
   */
  public static long parseDurationMs(String name, String text, boolean zeroAllowed) {
    if (zeroAllowed && text.trim().matches("0+(ms|s|m|h|d|w|y)?")) {
      return 0;
    }
    return parseDurationMs(name, text);
  }

  /**
   * {@link #parseBytes(String)} for a command-line option, whose name starts the error message.
   *
   * @param option the option's name, e.g. {@code --max-request-bytes}
   * @param text as for {@link #parseBytes(String)}
   * @return the size in bytes, &gt; 0
   * @throws IllegalArgumentException naming {@code option}, if {@code text} is not a positive
   *     size
   */
  public static long parseBytes(String option, String text) {
    try {
      return parseBytes(text);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(option + ": " + e.getMessage(), e);
    }
  }

  /**
   * @param text a byte size such as {@code 33554432}, {@code 32MiB} or {@code 512KiB}
   * @return the size in bytes, &gt; 0
   * @throws IllegalArgumentException if the text is not a positive size; the message quotes it
   */
  public static long parseBytes(String text) {
    Matcher m = SIZE.matcher(text.trim().toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "invalid size \"" + text + "\": use a number of bytes or e.g. 32MiB, 512KiB, 1GiB");
    }
    long n = Long.parseLong(m.group(1));
    String suffix = m.group(2) == null ? "b" : m.group(2);
    long unit;
    switch (suffix.charAt(0)) {
      case 'k': unit = 1L << 10; break;
      case 'm': unit = 1L << 20; break;
      case 'g': unit = 1L << 30; break;
      default: unit = 1L;
    }
    long bytes = Math.multiplyExact(n, unit);
    if (bytes <= 0) {
      throw new IllegalArgumentException("size must be positive: \"" + text + "\"");
    }
    return bytes;
  }
}
