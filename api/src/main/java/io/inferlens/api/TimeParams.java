package io.inferlens.api;

import java.math.BigDecimal;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.regex.Pattern;

/**
 * The one parser of times, durations and steps for every endpoint, with Prometheus's rules:
 * times ({@code start}, {@code end}, {@code time}) are RFC 3339 or Unix seconds with an optional
 * fraction; durations and steps are float seconds ({@code 15}, {@code 0.5}, {@code 1e3}) or
 * Prometheus durations ({@code 100ms}, {@code 15s}, {@code 5m}, {@code 1h30m}, {@code 2d},
 * {@code 1w}, {@code 1y}). Every error is an {@link IllegalArgumentException} whose message names
 * the parameter; the routes answer it with 400 {@code bad_data}. Missing values default to a bounded window so a lookup never scans
 * all history: {@code end} = now, {@code start} = {@code end} − 6 h.
 *
 * @param startMs inclusive start in milliseconds since the epoch
 * @param endMs inclusive end in milliseconds since the epoch, ≥ {@code startMs}
 */
public record TimeParams(long startMs, long endMs) {

  /** Largest accepted Unix time in seconds: 1e11 s is the year 5138, so bigger is milliseconds. */
  private static final BigDecimal MAX_SECONDS = new BigDecimal("1e11");

  /** Float seconds as Prometheus takes them; without it "1d" would be the Java literal 1.0. */
  private static final Pattern FLOAT_SECONDS =
      Pattern.compile("[+-]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][+-]?[0-9]+)?");

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

  /**
   * @param param parameter name, for the error message (e.g. {@code step})
   * @param value float seconds ({@code 15}, {@code 0.25}) or a Prometheus duration
   *     ({@code 100ms}, {@code 1h30m})
   * @return the duration in milliseconds, &gt; 0 (float seconds are rounded to the millisecond)
   * @throws IllegalArgumentException naming {@code param} if the value is neither, or is not
   *     positive, or overflows
   */
  public static long parseDurationMs(String param, String value) {
    String v = value.trim();
    long ms;
    if (FLOAT_SECONDS.matcher(v).matches()) {
      double seconds = Double.parseDouble(v);
      double m = Math.rint(seconds * 1000);
      if (!(m >= 1) || m > Long.MAX_VALUE) {
        throw new IllegalArgumentException("invalid parameter " + param + " \"" + value
            + "\": must be positive (at least 1ms)");
      }
      ms = (long) m;
    } else {
      try {
        ms = Units.parseDurationMs(v);
      } catch (IllegalArgumentException | ArithmeticException e) {
        throw new IllegalArgumentException("invalid parameter " + param + " \"" + value
            + "\": expected seconds or a duration such as 15s, 5m, 1h30m, 100ms");
      }
    }
    return ms;
  }

  /**
   * The step of a range evaluation: the requested {@code step} (or {@code baseMs} when absent),
   * coarsened when the range would need more than {@code maxSteps} steps to the smallest
   * multiple of {@code baseMs} that fits, as dashboards do.
   *
   * @param raw the raw {@code step} parameter, or null/empty for {@code baseMs}
   * @param rangeMs the range's length in milliseconds, &ge; 0
   * @param baseMs the analysis (evaluation) step in milliseconds, &gt; 0
   * @param maxSteps the most steps one evaluation may take, &gt; 0
   * @return the step in milliseconds, &gt; 0, with {@code rangeMs / step + 1 <= maxSteps}
   * @throws IllegalArgumentException naming {@code step} if the raw value does not parse
   */
  public static long stepMs(String raw, long rangeMs, long baseMs, long maxSteps) {
    long step = raw == null || raw.isEmpty() ? baseMs : parseDurationMs("step", raw);
    return fitStep(step, rangeMs, baseMs, maxSteps);
  }

  /**
   * @param stepMs the wanted step in milliseconds, &gt; 0
   * @param rangeMs the range's length in milliseconds, &ge; 0
   * @param baseMs the analysis step in milliseconds, &gt; 0; a coarsened step is a multiple
   * @param maxSteps the most steps allowed, &ge; 2
   * @return {@code stepMs} if {@code rangeMs / stepMs + 1 <= maxSteps}, else the smallest multiple
   *     of {@code baseMs} for which that holds
   */
  public static long fitStep(long stepMs, long rangeMs, long baseMs, long maxSteps) {
    if (rangeMs / stepMs + 1 <= maxSteps) {
      return stepMs;
    }
    long min = rangeMs / (maxSteps - 1) + 1; // smallest step with rangeMs / step < maxSteps - 1
    long k = (min + baseMs - 1) / baseMs;
    long step = k * baseMs;
    while (rangeMs / step + 1 > maxSteps) {
      step += baseMs;
    }
    return step;
  }
}
