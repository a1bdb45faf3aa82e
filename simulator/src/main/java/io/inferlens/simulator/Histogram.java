package io.inferlens.simulator;

import java.util.Arrays;

/**
 * A cumulative Prometheus histogram with fixed upper bounds, as prometheus_client keeps it: one
 * count per bucket (rendered cumulatively with {@code le} labels and a final {@code +Inf}), a total
 * count and a sum. Not thread-safe; the {@link SimulationModel} guards it.
 */
public final class Histogram {

  private final double[] bounds;
  private final long[] counts;
  private long count;
  private double sum;

  /**
   * @param bounds finite upper bounds in increasing order (the {@code +Inf} bucket is implicit)
   */
  public Histogram(double[] bounds) {
    for (int i = 1; i < bounds.length; i++) {
      if (!(bounds[i] > bounds[i - 1])) {
        throw new IllegalArgumentException("bounds must increase: " + Arrays.toString(bounds));
      }
    }
    this.bounds = bounds.clone();
    this.counts = new long[bounds.length + 1];
  }

  /**
   * Records {@code n} observations of the same value.
   *
   * @param value the observed value (e.g. seconds)
   * @param n how many times; 0 is a no-op
   */
  public void observe(double value, long n) {
    if (n <= 0) {
      return;
    }
    int i = Arrays.binarySearch(bounds, value);
    if (i < 0) {
      i = -i - 1; // first bound greater than value; le is inclusive so an exact hit stays at i
    }
    counts[i] += n;
    count += n;
    sum += value * n;
  }

  /** @return a copy of the finite upper bounds */
  public double[] bounds() {
    return bounds.clone();
  }

  /** @return cumulative counts, one per finite bound followed by the {@code +Inf} bucket */
  public long[] cumulative() {
    long[] c = new long[counts.length];
    long acc = 0;
    for (int i = 0; i < counts.length; i++) {
      acc += counts[i];
      c[i] = acc;
    }
    return c;
  }

  /**
   * Cumulative counts at a subset of this histogram's bounds: what a histogram with exactly those
   * bounds would hold after the same observations.
   *
   * @param subset finite bounds in increasing order, each one of {@link #bounds()} exactly
   * @return one cumulative count per bound of {@code subset}, then the {@code +Inf} bucket (the
   *     total count); length {@code subset.length + 1}
   * @throws IllegalArgumentException naming the bound if one is not a bound of this histogram
   */
  public long[] cumulativeAt(double[] subset) {
    long[] out = new long[subset.length + 1];
    long acc = 0;
    int next = 0;
    for (int k = 0; k < subset.length; k++) {
      int i = Arrays.binarySearch(bounds, subset[k]);
      if (i < 0) {
        throw new IllegalArgumentException("bound " + subset[k] + " is not one of "
            + Arrays.toString(bounds));
      }
      for (; next <= i; next++) {
        acc += counts[next];
      }
      out[k] = acc;
    }
    out[subset.length] = count;
    return out;
  }

  /** @return number of observations (equals the {@code +Inf} bucket) */
  public long count() {
    return count;
  }

  /** @return sum of the observed values */
  public double sum() {
    return sum;
  }

  /**
   * PromQL {@code histogram_quantile} on the difference of two cumulative snapshots of the same
   * histogram: linear interpolation inside the bucket, the lowest bucket starting at 0, a quantile
   * in {@code +Inf} returning the highest finite bound.
   *
   * @param q quantile in [0, 1]
   * @param bounds finite bounds
   * @param later cumulative counts at the end of the window
   * @param earlier cumulative counts at the start of the window (same length), or null for zero
   * @return the quantile, NaN when the window holds no observations
   */
  public static double quantile(double q, double[] bounds, long[] later, long[] earlier) {
    int n = later.length;
    long[] d = new long[n];
    for (int i = 0; i < n; i++) {
      d[i] = later[i] - (earlier == null ? 0 : earlier[i]);
    }
    long total = d[n - 1];
    if (total == 0) {
      return Double.NaN;
    }
    double rank = q * total;
    int b = 0;
    while (b < n - 1 && d[b] < rank) {
      b++;
    }
    if (b == n - 1) {
      return bounds[bounds.length - 1];
    }
    double lo = b == 0 ? 0 : bounds[b - 1];
    double hi = bounds[b];
    long below = b == 0 ? 0 : d[b - 1];
    long inBucket = d[b] - below;
    if (inBucket == 0) {
      return hi;
    }
    return lo + (hi - lo) * (rank - below) / inBucket;
  }
}
