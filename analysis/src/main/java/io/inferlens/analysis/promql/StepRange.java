package io.inferlens.analysis.promql;

/**
 * The evaluation steps of a range query: {@code startMs, startMs + stepMs, ...} up to and
 * including the last step not after {@code endMs} (Prometheus {@code query_range} does not align
 * {@code start} to the step, and neither does this).
 *
 * @param startMs first evaluation timestamp, milliseconds since the Unix epoch
 * @param endMs last evaluation timestamp allowed, milliseconds, &ge; {@code startMs}
 * @param stepMs distance between steps, milliseconds, &gt; 0
 */
public record StepRange(long startMs, long endMs, long stepMs) {

  /**
   * Most steps per query: Prometheus's own limit for {@code query_range} ("exceeded maximum
   * resolution of 11,000 points per timeseries"); it also bounds the result arrays to ~88 KB each.
   */
  public static final int MAX_STEPS = 11_000;

  /**
   * @throws IllegalArgumentException if {@code stepMs} &le; 0, {@code endMs} &lt; {@code startMs}
   *     or there would be more than {@value #MAX_STEPS} steps; the message has the numbers
   */
  public StepRange {
    if (stepMs <= 0) {
      throw new IllegalArgumentException("stepMs must be > 0, got " + stepMs);
    }
    if (endMs < startMs) {
      throw new IllegalArgumentException(
          "endMs " + endMs + " is before startMs " + startMs);
    }
    if ((endMs - startMs) / stepMs >= MAX_STEPS) {
      throw new IllegalArgumentException("range " + startMs + ".." + endMs + " at step " + stepMs
          + " ms has more than " + MAX_STEPS + " steps");
    }
  }

  /**
   * @param timestampMs the only evaluation timestamp, milliseconds
   * @return a range with one step, as an instant query at {@code timestampMs}
   */
  public static StepRange instant(long timestampMs) {
    return new StepRange(timestampMs, timestampMs, 1);
  }

  /** @return the number of steps, 1 to {@value #MAX_STEPS} */
  public int count() {
    return (int) ((endMs - startMs) / stepMs) + 1;
  }

  /**
   * @param i step index, 0 &le; i &lt; {@link #count()}
   * @return the timestamp of step {@code i}, milliseconds
   */
  public long timestampMs(int i) {
    return startMs + i * stepMs;
  }

  /** @return every step's timestamp in milliseconds, ascending, in a fresh array */
  public long[] timestampsMs() {
    long[] out = new long[count()];
    for (int i = 0; i < out.length; i++) {
      out[i] = timestampMs(i);
    }
    return out;
  }
}
