package io.inferlens.analysis.diagnose;

import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;

/**
 * Aligned per-step values of a target's indicators: step {@code i} is at
 * {@code startMs + i * stepMs} (milliseconds). A missing indicator (its metrics are not exposed)
 * is absent from the map; a present one may hold NaN at steps without data.
 *
 * <p>Not thread safe; arrays are owned by the frame.
 */
public final class IndicatorFrame {

  private final long startMs;
  private final long stepMs;
  private final int steps;
  private final EnumMap<Indicator, double[]> values = new EnumMap<>(Indicator.class);
  private final EnumMap<Indicator, String> queries = new EnumMap<>(Indicator.class);
  private final boolean[] gap;

  /**
   * @param startMs timestamp of step 0, milliseconds
   * @param stepMs step length, milliseconds, &gt; 0
   * @param steps number of steps, ≥ 0
   */
  public IndicatorFrame(long startMs, long stepMs, int steps) {
    if (stepMs <= 0 || steps < 0) {
      throw new IllegalArgumentException("stepMs " + stepMs + " and steps " + steps);
    }
    this.startMs = startMs;
    this.stepMs = stepMs;
    this.steps = steps;
    this.gap = new boolean[steps];
  }

  /** @return timestamp of step 0, ms */
  public long startMs() {
    return startMs;
  }

  /** @return step length, ms */
  public long stepMs() {
    return stepMs;
  }

  /** @return number of steps */
  public int steps() {
    return steps;
  }

  /**
   * @param i step index
   * @return its timestamp, ms
   */
  public long timeMs(int i) {
    return startMs + i * stepMs;
  }

  /**
   * @param ind the indicator
   * @param v its values, length {@link #steps()}; the frame keeps the array
   * @throws IllegalArgumentException on a length mismatch
   */
  public void put(Indicator ind, double[] v) {
    if (v.length != steps) {
      throw new IllegalArgumentException(ind.key() + " has " + v.length + " values, frame has "
          + steps + " steps");
    }
    values.put(ind, v);
  }

  /**
   * @param ind the indicator
   * @param promql the PromQL expression its values came from
   */
  public void putQuery(Indicator ind, String promql) {
    queries.put(ind, promql);
  }

  /** @return the PromQL expression the indicator's values came from, or null if none is known */
  public String query(Indicator ind) {
    return queries.get(ind);
  }

  /** @return the indicator's values or null when the target does not expose it */
  public double[] get(Indicator ind) {
    return values.get(ind);
  }

  /** @return whether the indicator is exposed and has at least one value */
  public boolean has(Indicator ind) {
    double[] v = values.get(ind);
    if (v == null) {
      return false;
    }
    for (double d : v) {
      if (!Double.isNaN(d)) {
        return true;
      }
    }
    return false;
  }

  /** @return the indicators present, in enum order (read-only view) */
  public Map<Indicator, double[]> all() {
    return java.util.Collections.unmodifiableMap(values);
  }

  /**
   * Marks steps at which expected scrapes are missing (monitoring gap).
   *
   * @param i step index
   */
  public void markGap(int i) {
    gap[i] = true;
  }

  /**
   * @param i step index
   * @return whether step {@code i} lies in a monitoring gap
   */
  public boolean isGap(int i) {
    return gap[i];
  }

  /** @return a frame of NaNs for every indicator already present; for tests */
  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("IndicatorFrame[" + startMs + "+" + stepMs + "ms×" + steps);
    for (Map.Entry<Indicator, double[]> e : values.entrySet()) {
      sb.append(", ").append(e.getKey().key()).append('=')
          .append(Arrays.toString(Arrays.copyOf(e.getValue(), Math.min(5, steps))));
    }
    return sb.append(']').toString();
  }
}
