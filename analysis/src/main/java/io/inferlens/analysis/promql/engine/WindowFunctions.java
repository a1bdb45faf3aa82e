package io.inferlens.analysis.promql.engine;

import io.inferlens.analysis.promql.ast.Function;
import io.inferlens.analysis.promql.ast.Printer;

/**
 * The functions of a range vector, applied to one series' window of samples at one step, as
 * Prometheus 2.42's {@code promql/functions.go}: {@code rate}/{@code increase}/{@code delta}
 * extrapolate ({@link #extrapolatedRate}); {@code irate}/{@code idelta} use the last
 * two samples; {@code *_over_time} aggregate the window (sums Kahan-Neumaier compensated, as
 * 2.42); {@code deriv} and {@code predict_linear} fit a least-squares line
 * ({@code linearRegression}, x in seconds from the first sample, or from the step time for
 * {@code predict_linear}); {@code holt_winters} is double exponential smoothing.
 */
final class WindowFunctions {

  private WindowFunctions() {}

  /** The window handed to a function: samples {@code [from, to)} of {@code t}/{@code v}. */
  static final class Window {
    long[] t;
    double[] v;
    int from;
    int to;
    /** window start, {@code ref - range}, milliseconds */
    long rangeStartMs;
    /** window end, the reference time, milliseconds */
    long rangeEndMs;
    /** the range as written, milliseconds */
    long rangeMs;
    /** the step time, milliseconds */
    long evalMs;
    /** the scalar arguments at this step, by argument position */
    double[] args;

    int size() {
      return to - from;
    }
  }

  /** One function over a non-empty window. */
  @FunctionalInterface
  interface Fn {
    /**
     * @param w the window, at least one sample
     * @param out receives the value in {@code out[0]}
     * @return whether there is a value at this step
     */
    boolean apply(Window w, double[] out);
  }

  /**
   * @param f a function with a range-vector argument
   * @return its window function
   * @throws IllegalArgumentException if {@code f} takes no range vector
   */
  static Fn of(Function f) {
    switch (f) {
      case RATE: return (w, o) -> rate(w, o, true, true);
      case INCREASE: return (w, o) -> rate(w, o, true, false);
      case DELTA: return (w, o) -> rate(w, o, false, false);
      case IRATE: return (w, o) -> instant(w, o, true);
      case IDELTA: return (w, o) -> instant(w, o, false);
      case AVG_OVER_TIME: return WindowFunctions::avg;
      case SUM_OVER_TIME: return (w, o) -> set(o, kahanSum(w));
      case COUNT_OVER_TIME: return (w, o) -> set(o, w.size());
      case MIN_OVER_TIME: return (w, o) -> set(o, minMax(w, false));
      case MAX_OVER_TIME: return (w, o) -> set(o, minMax(w, true));
      case LAST_OVER_TIME: return (w, o) -> set(o, w.v[w.to - 1]);
      case PRESENT_OVER_TIME, ABSENT_OVER_TIME: return (w, o) -> set(o, 1);
      case STDDEV_OVER_TIME: return (w, o) -> set(o, Math.sqrt(variance(w)));
      case STDVAR_OVER_TIME: return (w, o) -> set(o, variance(w));
      case QUANTILE_OVER_TIME: return (w, o) -> {
        double[] values = java.util.Arrays.copyOfRange(w.v, w.from, w.to);
        return set(o, Aggregations.quantile(w.args[0], values));
      };
      case CHANGES: return WindowFunctions::changes;
      case RESETS: return WindowFunctions::resets;
      case DERIV: return (w, o) -> {
        if (w.size() < 2) {
          return false;
        }
        return set(o, linearRegression(w, w.t[w.from])[0]);
      };
      case PREDICT_LINEAR: return (w, o) -> {
        if (w.size() < 2) {
          return false;
        }
        double[] si = linearRegression(w, w.evalMs);
        return set(o, si[0] * w.args[1] + si[1]);
      };
      case HOLT_WINTERS: return WindowFunctions::holtWinters;
      default: throw new IllegalArgumentException(f.promName() + " takes no range vector");
    }
  }

  private static boolean set(double[] out, double v) {
    out[0] = v;
    return true;
  }

  private static boolean rate(Window w, double[] out, boolean counter, boolean perSecond) {
    if (w.size() < 2) {
      return false;
    }
    double seconds = perSecond ? goDurationSeconds(w.rangeMs) : Double.NaN;
    out[0] = extrapolatedRate(w.t, w.v, w.from, w.to, w.rangeStartMs,
        w.rangeEndMs, counter, seconds);
    return true;
  }

  /** 2.42 {@code instantValue}: the last two samples; a drop counts as a reset for irate. */
  private static boolean instant(Window w, double[] out, boolean isRate) {
    if (w.size() < 2) {
      return false;
    }
    int last = w.to - 1;
    int prev = last - 1;
    double result = w.v[last] - w.v[prev];
    if (isRate && w.v[last] < w.v[prev]) {
      result = w.v[last];
    }
    long interval = w.t[last] - w.t[prev];
    if (interval == 0) {
      return false;
    }
    if (isRate) {
      result /= interval / 1000.0;
    }
    out[0] = result;
    return true;
  }

  private static boolean avg(Window w, double[] out) {
    double mean = 0;
    double c = 0;
    double count = 0;
    for (int i = w.from; i < w.to; i++) {
      double x = w.v[i];
      count++;
      if (Double.isInfinite(mean)) {
        if (Double.isInfinite(x) && (mean > 0) == (x > 0)) {
          continue;
        }
        if (!Double.isInfinite(x) && !Double.isNaN(x)) {
          continue;
        }
      }
      double inc = x / count - mean / count;
      double t = mean + inc;
      c += Math.abs(mean) >= Math.abs(inc) ? (mean - t) + inc : (inc - t) + mean;
      mean = t;
    }
    out[0] = Double.isInfinite(mean) ? mean : mean + c;
    return true;
  }

  private static double kahanSum(Window w) {
    double sum = 0;
    double c = 0;
    for (int i = w.from; i < w.to; i++) {
      double x = w.v[i];
      double t = sum + x;
      c += Math.abs(sum) >= Math.abs(x) ? (sum - t) + x : (x - t) + sum;
      sum = t;
    }
    return Double.isInfinite(sum) ? sum : sum + c;
  }

  private static double minMax(Window w, boolean max) {
    double m = w.v[w.from];
    for (int i = w.from; i < w.to; i++) {
      double x = w.v[i];
      if ((max ? x > m : x < m) || Double.isNaN(m)) {
        m = x;
      }
    }
    return m;
  }

  /** Population variance by Welford's method with Kahan-compensated sums, as 2.42. */
  private static double variance(Window w) {
    double count = 0;
    double mean = 0;
    double cMean = 0;
    double aux = 0;
    double cAux = 0;
    for (int i = w.from; i < w.to; i++) {
      double x = w.v[i];
      count++;
      double delta = x - (mean + cMean);
      double[] m = kahanInc(delta / count, mean, cMean);
      mean = m[0];
      cMean = m[1];
      double[] a = kahanInc(delta * (x - (mean + cMean)), aux, cAux);
      aux = a[0];
      cAux = a[1];
    }
    return (aux + cAux) / count;
  }

  /** Prometheus's {@code kahanSumInc} (Neumaier's variant). */
  private static double[] kahanInc(double inc, double sum, double c) {
    double t = sum + inc;
    if (Math.abs(sum) >= Math.abs(inc)) {
      c += (sum - t) + inc;
    } else {
      c += (inc - t) + sum;
    }
    return new double[] {t, c};
  }

  private static boolean changes(Window w, double[] out) {
    int n = 0;
    double prev = w.v[w.from];
    for (int i = w.from + 1; i < w.to; i++) {
      double cur = w.v[i];
      if (cur != prev && !(Double.isNaN(cur) && Double.isNaN(prev))) {
        n++;
      }
      prev = cur;
    }
    out[0] = n;
    return true;
  }

  private static boolean resets(Window w, double[] out) {
    int n = 0;
    double prev = w.v[w.from];
    for (int i = w.from + 1; i < w.to; i++) {
      double cur = w.v[i];
      if (cur < prev) {
        n++;
      }
      prev = cur;
    }
    out[0] = n;
    return true;
  }

  /**
   * 2.42 {@code linearRegression}: least squares with x in seconds relative to
   * {@code interceptMs}; a constant window gives slope 0 (NaN, NaN for an infinite constant).
   *
   * @return {slope per second, intercept at interceptMs}
   */
  static double[] linearRegression(Window w, long interceptMs) {
    double n = 0;
    double sumX = 0;
    double cX = 0;
    double sumY = 0;
    double cY = 0;
    double sumXY = 0;
    double cXY = 0;
    double sumX2 = 0;
    double cX2 = 0;
    double initY = w.v[w.from];
    boolean constY = true;
    for (int i = w.from; i < w.to; i++) {
      double y = w.v[i];
      if (constY && i > w.from && y != initY) {
        constY = false;
      }
      n += 1;
      double x = (w.t[i] - interceptMs) / 1e3;
      double[] r = kahanInc(x, sumX, cX);
      sumX = r[0];
      cX = r[1];
      r = kahanInc(y, sumY, cY);
      sumY = r[0];
      cY = r[1];
      r = kahanInc(x * y, sumXY, cXY);
      sumXY = r[0];
      cXY = r[1];
      r = kahanInc(x * x, sumX2, cX2);
      sumX2 = r[0];
      cX2 = r[1];
    }
    if (constY) {
      if (Double.isInfinite(initY)) {
        return new double[] {Double.NaN, Double.NaN};
      }
      return new double[] {0, initY};
    }
    sumX += cX;
    sumY += cY;
    sumXY += cXY;
    sumX2 += cX2;
    double covXY = sumXY - sumX * sumY / n;
    double varX = sumX2 - sumX * sumX / n;
    double slope = covXY / varX;
    double intercept = sumY / n - slope * sumX / n;
    return new double[] {slope, intercept};
  }

  /**
   * 2.42 {@code holt_winters(v, sf, tf)}: double exponential smoothing; both factors must lie in
   * (0, 1).
   *
   * @throws QueryException {@code EXECUTION} naming the factor out of range
   */
  private static boolean holtWinters(Window w, double[] out) {
    double sf = w.args[1];
    double tf = w.args[2];
    if (sf <= 0 || sf >= 1) {
      throw QueryException.execution(
          "invalid smoothing factor. Expected: 0 < sf < 1, got: %s", Printer.number(sf));
    }
    if (tf <= 0 || tf >= 1) {
      throw QueryException.execution(
          "invalid trend factor. Expected: 0 < tf < 1, got: %s", Printer.number(tf));
    }
    int l = w.size();
    if (l < 2) {
      return false;
    }
    double s0 = 0;
    double s1 = w.v[w.from];
    double b = w.v[w.from + 1] - w.v[w.from];
    for (int i = 1; i < l; i++) {
      double x = sf * w.v[w.from + i];
      if (i > 1) {
        b = tf * (s1 - s0) + (1 - tf) * b;
      }
      double y = (1 - sf) * (s1 + b);
      s0 = s1;
      s1 = x + y;
    }
    out[0] = s1;
    return true;
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
  static double extrapolatedRate(long[] timestampsMs, double[] values, int from, int to,
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
    double extrapolationThreshold = averageDurationBetweenSamples * 1.1 /* extrapolation threshold, as 2.42 */;
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
  static double goDurationSeconds(long ms) {
    long sec = ms / 1000;
    long nanos = (ms % 1000) * 1_000_000L;
    return (double) sec + (double) nanos / 1e9;
  }

}
