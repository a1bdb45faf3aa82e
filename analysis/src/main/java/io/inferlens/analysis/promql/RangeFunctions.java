package io.inferlens.analysis.promql;

import io.inferlens.storage.Series;
import java.util.Objects;

/**
 * PromQL range-vector functions ({@code f(x[range])}) evaluated at every step of a
 * {@link StepRange}, over one series, exactly as Prometheus 2.42 evaluates them in a range query.
 *
 * <p>Window: at step {@code t} a function sees the series' samples with timestamps in
 * {@code [t - rangeMs, t]}, <b>inclusive on both ends</b> (Prometheus 2.x {@code matrixIterSlice};
 * 3.x made the left end open), stale markers removed. A step whose window has too few samples has
 * no value (NaN in the result): fewer than 2 for {@link #rate}, {@link #increase} and
 * {@link #delta}, none for the {@code *_over_time} functions. An ordinary NaN sample value
 * propagates into the result, where it also reads as "no value".
 *
 * <p>Units: timestamps and {@code rangeMs} in milliseconds; {@link #rate} is per second.
 *
 * <p>Cost: O(samples + steps) per call, two pointers slide over the samples; the over-time
 * functions add O(samples in window) per step. Thread safety: stateless.
 *
 * <p>Source: Prometheus v2.42.0 {@code promql/functions.go} ({@code extrapolatedRate},
 * {@code aggrOverTime}, {@code funcAvgOverTime}, {@code funcSumOverTime},
 * {@code funcMaxOverTime}, {@code funcLastOverTime}, {@code funcCountOverTime}, {@code kahanSumInc}).
 */
public final class RangeFunctions {

  /**
   * Extrapolation threshold factor from {@code extrapolatedRate}: a window edge closer to the first
   * or last sample than 1.1 average sample intervals is assumed to have a sample just beyond it
   * ("with an allowance for noise"), so the result is extrapolated all the way to that edge.
   */
  static final double EXTRAPOLATION_THRESHOLD_FACTOR = 1.1;

  private RangeFunctions() {}

  /** A function of the samples {@code [from, to)} of one window. */
  @FunctionalInterface
  interface WindowFunction {
    /** @return the value, or NaN for "no value" */
    double apply(long[] ts, double[] v, int from, int to, long rangeStartMs, long rangeEndMs);
  }

  /**
   * {@code rate(x[range])}: the per-second average increase of a counter over the window, with
   * counter resets handled and extrapolation to the window edges.
   *
   * @param series the counter's samples (stale markers are skipped)
   * @param rangeMs window length in milliseconds, &gt; 0
   * @param steps evaluation steps
   * @return per-second rate at each step, NaN where the window holds fewer than 2 samples
   * @throws IllegalArgumentException if {@code rangeMs} &le; 0
   */
  public static StepSeries rate(Series series, long rangeMs, StepRange steps) {
    double rangeSeconds = goDurationSeconds(requirePositive(rangeMs));
    return evaluate(series, rangeMs, steps,
        (ts, v, from, to, s, e) -> extrapolatedRate(ts, v, from, to, s, e, true, rangeSeconds));
  }

  /**
   * {@code increase(x[range])}: the increase of a counter over the window, resets handled and
   * extrapolated to the window edges ({@link #rate} times the range in seconds, computed as
   * Prometheus does, not by multiplying).
   *
   * @param series the counter's samples (stale markers are skipped)
   * @param rangeMs window length in milliseconds, &gt; 0
   * @param steps evaluation steps
   * @return increase at each step in the counter's unit, NaN where fewer than 2 samples
   * @throws IllegalArgumentException if {@code rangeMs} &le; 0
   */
  public static StepSeries increase(Series series, long rangeMs, StepRange steps) {
    requirePositive(rangeMs);
    return evaluate(series, rangeMs, steps,
        (ts, v, from, to, s, e) -> extrapolatedRate(ts, v, from, to, s, e, true, Double.NaN));
  }

  /**
   * {@code delta(x[range])}: last minus first value of a gauge over the window, extrapolated to
   * the window edges; no reset handling and no clamping at zero.
   *
   * @param series the gauge's samples (stale markers are skipped)
   * @param rangeMs window length in milliseconds, &gt; 0
   * @param steps evaluation steps
   * @return delta at each step in the gauge's unit, NaN where fewer than 2 samples
   * @throws IllegalArgumentException if {@code rangeMs} &le; 0
   */
  public static StepSeries delta(Series series, long rangeMs, StepRange steps) {
    requirePositive(rangeMs);
    return evaluate(series, rangeMs, steps,
        (ts, v, from, to, s, e) -> extrapolatedRate(ts, v, from, to, s, e, false, Double.NaN));
  }

  /**
   * {@code avg_over_time(x[range])}: the mean of the window's values, computed incrementally with
   * Kahan-Neumaier compensation as Prometheus 2.42 does.
   *
   * @param series the samples (stale markers are skipped)
   * @param rangeMs window length in milliseconds, &gt; 0
   * @param steps evaluation steps
   * @return mean at each step, NaN where the window is empty
   * @throws IllegalArgumentException if {@code rangeMs} &le; 0
   */
  public static StepSeries avgOverTime(Series series, long rangeMs, StepRange steps) {
    requirePositive(rangeMs);
    return evaluate(series, rangeMs, steps, (ts, v, from, to, s, e) -> {
      double mean = 0;
      double c = 0;
      double count = 0;
      for (int i = from; i < to; i++) {
        count++;
        if (Double.isInfinite(mean)) {
          if (Double.isInfinite(v[i]) && (mean > 0) == (v[i] > 0)) {
            continue; // Inf of the same sign: mean is already right, Inf - Inf would be NaN
          }
          if (!Double.isInfinite(v[i]) && !Double.isNaN(v[i])) {
            continue; // a finite value does not move an infinite mean
          }
        }
        double inc = v[i] / count - mean / count;
        double t = mean + inc;
        c += Math.abs(mean) >= Math.abs(inc) ? (mean - t) + inc : (inc - t) + mean;
        mean = t;
      }
      return Double.isInfinite(mean) ? mean : mean + c;
    });
  }

  /**
   * {@code sum_over_time(x[range])}: Kahan-Neumaier sum of the window's values.
   *
   * @param series the samples (stale markers are skipped)
   * @param rangeMs window length in milliseconds, &gt; 0
   * @param steps evaluation steps
   * @return sum at each step, NaN where the window is empty
   * @throws IllegalArgumentException if {@code rangeMs} &le; 0
   */
  public static StepSeries sumOverTime(Series series, long rangeMs, StepRange steps) {
    requirePositive(rangeMs);
    return evaluate(series, rangeMs, steps, (ts, v, from, to, s, e) -> {
      double sum = 0;
      double c = 0;
      for (int i = from; i < to; i++) {
        double t = sum + v[i];
        c += Math.abs(sum) >= Math.abs(v[i]) ? (sum - t) + v[i] : (v[i] - t) + sum;
        sum = t;
      }
      return Double.isInfinite(sum) ? sum : sum + c;
    });
  }

  /**
   * {@code count_over_time(x[range])}: the number of samples in the window.
   *
   * @param series the samples (stale markers are skipped, so not counted)
   * @param rangeMs window length in milliseconds, &gt; 0
   * @param steps evaluation steps
   * @return count at each step (&ge; 1), NaN where the window is empty
   * @throws IllegalArgumentException if {@code rangeMs} &le; 0
   */
  public static StepSeries countOverTime(Series series, long rangeMs, StepRange steps) {
    requirePositive(rangeMs);
    return evaluate(series, rangeMs, steps, (ts, v, from, to, s, e) -> to - from);
  }

  /**
   * {@code max_over_time(x[range])}: the largest value in the window; a NaN value is replaced by
   * any later value (Prometheus: {@code if v > max || isNaN(max)}).
   *
   * @param series the samples (stale markers are skipped)
   * @param rangeMs window length in milliseconds, &gt; 0
   * @param steps evaluation steps
   * @return maximum at each step, NaN where the window is empty
   * @throws IllegalArgumentException if {@code rangeMs} &le; 0
   */
  public static StepSeries maxOverTime(Series series, long rangeMs, StepRange steps) {
    requirePositive(rangeMs);
    return evaluate(series, rangeMs, steps, (ts, v, from, to, s, e) -> {
      double max = v[from];
      for (int i = from; i < to; i++) {
        if (v[i] > max || Double.isNaN(max)) {
          max = v[i];
        }
      }
      return max;
    });
  }

  /**
   * {@code last_over_time(x[range])}: the newest value in the window.
   *
   * @param series the samples (stale markers are skipped)
   * @param rangeMs window length in milliseconds, &gt; 0
   * @param steps evaluation steps
   * @return last value at each step, NaN where the window is empty
   * @throws IllegalArgumentException if {@code rangeMs} &le; 0
   */
  public static StepSeries lastOverTime(Series series, long rangeMs, StepRange steps) {
    requirePositive(rangeMs);
    return evaluate(series, rangeMs, steps, (ts, v, from, to, s, e) -> v[to - 1]);
  }

  /**
   * Prometheus 2.42 {@code extrapolatedRate} over the samples {@code [from, to)} of one window,
   * operation for operation (so results agree to the last bit in ordinary cases):
   *
   * <ol>
   *   <li>fewer than 2 samples: no value (NaN);
   *   <li>result = last - first; for counters, every drop adds the value before it (a reset);
   *   <li>durations in seconds from the window start to the first sample and from the last sample
   *       to the window end; for counters with a positive result and a non-negative first value,
   *       the start duration is capped at the extrapolated time to zero
   *       ({@code sampledInterval * first / result}), so a counter is never extrapolated below 0;
   *   <li>each edge is extrapolated to in full if it is closer than 1.1 average sample intervals,
   *       otherwise by half an average interval;
   *   <li>result × extrapolated interval / sampled interval, divided by the range in seconds for a
   *       rate.
   * </ol>
   *
   * @param timestampsMs sample timestamps, milliseconds, strictly ascending within the window
   * @param values sample values, parallel to {@code timestampsMs}
   * @param from first sample index in the window, inclusive
   * @param to last sample index in the window, exclusive
   * @param rangeStartMs window start ({@code t - range}), milliseconds
   * @param rangeEndMs window end ({@code t}), milliseconds
   * @param isCounter whether to handle resets and clamp at zero ({@code rate}, {@code increase})
   * @param rateRangeSeconds the range in seconds to divide by for a rate, or NaN for no division
   *     ({@code increase}, {@code delta})
   * @return the rate (per second), increase or delta; NaN when fewer than 2 samples
   */
  public static double extrapolatedRate(long[] timestampsMs, double[] values, int from, int to,
      long rangeStartMs, long rangeEndMs, boolean isCounter, double rateRangeSeconds) {
    int n = to - from;
    if (n < 2) {
      return Double.NaN;
    }
    double first = values[from];
    double result = values[to - 1] - first;
    if (isCounter) {
      double prev = first;
      for (int i = from + 1; i < to; i++) {
        if (values[i] < prev) {
          result += prev;
        }
        prev = values[i];
      }
    }
    long firstTs = timestampsMs[from];
    long lastTs = timestampsMs[to - 1];
    double durationToStart = (double) (firstTs - rangeStartMs) / 1000;
    double durationToEnd = (double) (rangeEndMs - lastTs) / 1000;
    double sampledInterval = (double) (lastTs - firstTs) / 1000;
    double averageDurationBetweenSamples = sampledInterval / (double) (n - 1);

    if (isCounter && result > 0 && first >= 0) {
      double durationToZero = sampledInterval * (first / result);
      if (durationToZero < durationToStart) {
        durationToStart = durationToZero;
      }
    }
    double extrapolationThreshold = averageDurationBetweenSamples * EXTRAPOLATION_THRESHOLD_FACTOR;
    double extrapolateToInterval = sampledInterval;
    if (durationToStart < extrapolationThreshold) {
      extrapolateToInterval += durationToStart;
    } else {
      extrapolateToInterval += averageDurationBetweenSamples / 2;
    }
    if (durationToEnd < extrapolationThreshold) {
      extrapolateToInterval += durationToEnd;
    } else {
      extrapolateToInterval += averageDurationBetweenSamples / 2;
    }
    double factor = extrapolateToInterval / sampledInterval;
    if (!Double.isNaN(rateRangeSeconds)) {
      factor /= rateRangeSeconds;
    }
    return result * factor;
  }

  /**
   * Go's {@code time.Duration.Seconds()} for a whole number of milliseconds: whole seconds plus the
   * fraction, each converted separately, so 300000 ms gives exactly 300.0.
   */
  public static double goDurationSeconds(long ms) {
    long sec = ms / 1000;
    long nanos = (ms % 1000) * 1_000_000L;
    return (double) sec + (double) nanos / 1e9;
  }

  /**
   * Slides the window {@code [t - rangeMs, t]} over the stale-free samples for each step and
   * applies {@code f} to non-empty windows; empty windows give NaN.
   */
  static StepSeries evaluate(Series series, long rangeMs, StepRange steps, WindowFunction f) {
    Objects.requireNonNull(series, "series");
    FloatSamples s = FloatSamples.withoutStaleMarkers(series);
    long[] out = steps.timestampsMs();
    double[] values = new double[out.length];
    int lo = 0;
    int hi = 0;
    for (int k = 0; k < out.length; k++) {
      long end = out[k];
      long start = end - rangeMs;
      while (lo < s.size && s.timestampsMs[lo] < start) {
        lo++;
      }
      if (hi < lo) {
        hi = lo;
      }
      while (hi < s.size && s.timestampsMs[hi] <= end) {
        hi++;
      }
      values[k] = hi > lo
          ? f.apply(s.timestampsMs, s.values, lo, hi, start, end)
          : Double.NaN;
    }
    return new StepSeries(out, values);
  }

  static long requirePositive(long rangeMs) {
    if (rangeMs <= 0) {
      throw new IllegalArgumentException("range must be > 0 ms, got " + rangeMs);
    }
    return rangeMs;
  }
}
