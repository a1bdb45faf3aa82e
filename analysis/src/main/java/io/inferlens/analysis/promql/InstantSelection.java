package io.inferlens.analysis.promql;

import io.inferlens.storage.Series;
import java.util.Objects;

/**
 * PromQL instant-vector selection ({@code x} evaluated at each step of a range query), as
 * Prometheus 2.42 {@code promql/engine.go} {@code vectorSelectorSingle}: at step {@code t} the value
 * is that of the newest sample with timestamp in {@code [t - lookback, t]} (inclusive on both ends
 * in 2.x), unless that newest sample is a stale marker, in which case there is no value: a stale
 * marker ends the series until a later sample arrives.
 *
 * <p>Units: milliseconds. Thread safety: stateless.
 */
public final class InstantSelection {

  /** Prometheus's default {@code --query.lookback-delta}: 5 minutes, in milliseconds. */
  public static final long DEFAULT_LOOKBACK_MS = 5 * 60 * 1000L;

  private InstantSelection() {}

  /**
   * Selection with the default 5-minute lookback.
   *
   * @see #select(Series, StepRange, long)
   */
  public static StepSeries select(Series series, StepRange steps) {
    return select(series, steps, DEFAULT_LOOKBACK_MS);
  }

  /**
   * @param series the samples, stale markers included (they matter here)
   * @param steps evaluation steps
   * @param lookbackMs how far back a sample still counts, milliseconds, &gt; 0
   * @return the selected value at each step, NaN where no sample is in the lookback window or the
   *     newest one is a stale marker
   * @throws IllegalArgumentException if {@code lookbackMs} &le; 0
   */
  public static StepSeries select(Series series, StepRange steps, long lookbackMs) {
    Objects.requireNonNull(series, "series");
    if (lookbackMs <= 0) {
      throw new IllegalArgumentException("lookback must be > 0 ms, got " + lookbackMs);
    }
    long[] ts = series.timestampsMs();
    long[] bits = series.valueBits();
    long[] out = steps.timestampsMs();
    double[] values = new double[out.length];
    int next = 0; // first sample after the current step
    for (int k = 0; k < out.length; k++) {
      long t = out[k];
      while (next < ts.length && ts[next] <= t) {
        next++;
      }
      int latest = next - 1;
      if (latest < 0 || ts[latest] < t - lookbackMs || StaleMarker.is(bits[latest])) {
        values[k] = Double.NaN;
      } else {
        values[k] = Double.longBitsToDouble(bits[latest]);
      }
    }
    return new StepSeries(out, values);
  }
}
