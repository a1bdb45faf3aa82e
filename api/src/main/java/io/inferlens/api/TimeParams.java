package io.inferlens.api;

import java.math.BigDecimal;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;

/**
 * The {@code start}/{@code end} parameters of the Prometheus HTTP API: RFC 3339 or Unix seconds
 * with an optional fraction. Missing values default to a bounded window so a lookup never scans
 * all history: {@code end} = now, {@code start} = {@code end} − 6 h.
 *
 * @param startMs inclusive start in milliseconds since the epoch
 * @param endMs inclusive end in milliseconds since the epoch, ≥ {@code startMs}
 */
public record TimeParams(long startMs, long endMs) {

  /** Largest accepted Unix time in seconds: 1e11 s is the year 5138, so bigger is milliseconds. */
  private static final BigDecimal MAX_SECONDS = new BigDecimal("1e11");

  /** Default lookback when {@code start} is absent: 6 hours, in milliseconds. */
  public static final long DEFAULT_LOOKBACK_MS = 6 * 3_600_000L;

  /**
   * @param start the raw {@code start} parameter or null
   * @param end the raw {@code end} parameter or null
   * @param clock the source of "now"
   * @return the range in milliseconds
   * @throws IllegalArgumentException if a value is neither RFC 3339 nor a number, or end &lt;
   *     start; the message names the parameter
   */
  public static TimeParams parse(String start, String end, Clock clock) {
    long endMs = end == null || end.isEmpty() ? clock.millis() : parseTimeMs("end", end);
    long startMs = start == null || start.isEmpty()
        ? endMs - DEFAULT_LOOKBACK_MS : parseTimeMs("start", start);
    if (endMs < startMs) {
      throw new IllegalArgumentException(
          "parameter end (" + endMs + " ms) is before start (" + startMs + " ms)");
    }
    return new TimeParams(startMs, endMs);
  }

  /**
   * @param param parameter name, for the error message
   * @param value RFC 3339 text or Unix seconds such as {@code 1700000000.123}
   * @return milliseconds since the epoch
   * @throws IllegalArgumentException if the value cannot be parsed
   */
  public static long parseTimeMs(String param, String value) {
    try {
      BigDecimal seconds = new BigDecimal(value);
      if (seconds.abs().compareTo(MAX_SECONDS) > 0) {
        throw new IllegalArgumentException("invalid parameter " + param + " \"" + value
            + "\": Unix time in seconds expected (this looks like milliseconds or is out of range)");
      }
      return seconds.movePointRight(3).setScale(0, java.math.RoundingMode.FLOOR).longValueExact();
    } catch (NumberFormatException | ArithmeticException e) {
      try {
        return OffsetDateTime.parse(value).toInstant().toEpochMilli();
      } catch (DateTimeParseException e2) {
        throw new IllegalArgumentException("invalid parameter " + param + " \"" + value
            + "\": expected RFC 3339 or Unix seconds", e2);
      }
    }
  }
}
