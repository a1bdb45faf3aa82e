package io.inferlens.analysis.smoothing;

/**
 * Moving averages over evaluated step values (docs/DESIGN.md §3: "SMA over the last N points; EMA with
 * {@code α = 2/(N+1)}"). Inputs are values at consecutive steps, NaN meaning "no value at this
 * step"; outputs are fresh arrays of the same length, NaN where nothing is known yet.
 *
 * <p>Thread safety: stateless.
 */
public final class Smoothing {

  /**
   * Default window in points: 10, so α = 2/11 ≈ 0.18 for the EMA; at the default 10–15 s step it
   * spans 100–150 s, short next to the 5 m a condition must hold before it is a diagnosis.
   */
  public static final int DEFAULT_N = 10;

  private Smoothing() {}

  /**
   * Simple moving average: {@code out[i]} is the mean of the non-NaN values among
   * {@code values[max(0, i - n + 1) .. i]}, NaN when all of them are NaN (before the first value,
   * or in a gap of at least {@code n} points).
   *
   * @param values values at consecutive steps, NaN = none; not modified
   * @param n window in points, &ge; 1
   * @return smoothed values, same length
   * @throws IllegalArgumentException if {@code n} &lt; 1
   */
  public static double[] sma(double[] values, int n) {
    requireWindow(n);
    double[] out = new double[values.length];
    for (int i = 0; i < values.length; i++) {
      // Summed afresh per point (O(len × n), n is small) so one huge value or an Inf does not
      // poison later windows through a running sum.
      double sum = 0;
      int count = 0;
      for (int j = Math.max(0, i - n + 1); j <= i; j++) {
        if (!Double.isNaN(values[j])) {
          sum += values[j];
          count++;
        }
      }
      out[i] = count == 0 ? Double.NaN : sum / count;
    }
    return out;
  }

  /** {@link #sma(double[], int)} with {@link #DEFAULT_N}. */
  public static double[] sma(double[] values) {
    return sma(values, DEFAULT_N);
  }

  /**
   * Exponential moving average with {@code α = 2/(n+1)}: the first non-NaN value starts it
   * ({@code out = value}), then {@code out[i] = α·values[i] + (1 − α)·out[i−1]}. Output is NaN
   * before the first value; a NaN input repeats the previous output (a missing step neither pulls
   * the average nor resets it).
   *
   * @param values values at consecutive steps, NaN = none; not modified
   * @param n window in points, &ge; 1 (n = 1 gives α = 1: no smoothing)
   * @return smoothed values, same length
   * @throws IllegalArgumentException if {@code n} &lt; 1
   */
  public static double[] ema(double[] values, int n) {
    return emaWithAlpha(values, alpha(n));
  }

  /**
   * {@link #ema(double[], int)} with the smoothing factor given directly, e.g. the factor of an
   * N-point EMA re-expressed for points k times further apart, {@code 1 − (1 − α)^k}, which
   * decays by the same amount per unit of time.
   *
   * @param values values at consecutive steps, NaN = none; not modified
   * @param alpha smoothing factor in (0, 1]
   * @return smoothed values, same length
   * @throws IllegalArgumentException if alpha is not in (0, 1]
   */
  public static double[] emaWithAlpha(double[] values, double alpha) {
    if (!(alpha > 0 && alpha <= 1)) {
      throw new IllegalArgumentException("alpha must be in (0, 1], got " + alpha);
    }
    double[] out = new double[values.length];
    double prev = Double.NaN;
    for (int i = 0; i < values.length; i++) {
      double v = values[i];
      if (!Double.isNaN(v)) {
        prev = Double.isNaN(prev) ? v : alpha * v + (1 - alpha) * prev;
      }
      out[i] = prev;
    }
    return out;
  }

  /** {@link #ema(double[], int)} with {@link #DEFAULT_N}. */
  public static double[] ema(double[] values) {
    return ema(values, DEFAULT_N);
  }

  /**
   * @param n window in points, &ge; 1
   * @return the EMA smoothing factor {@code 2/(n+1)}, in (0, 1]
   * @throws IllegalArgumentException if {@code n} &lt; 1
   */
  public static double alpha(int n) {
    requireWindow(n);
    return 2.0 / (n + 1);
  }

  private static void requireWindow(int n) {
    if (n < 1) {
      throw new IllegalArgumentException("window must be >= 1 point, got " + n);
    }
  }
}
