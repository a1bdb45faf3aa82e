package io.inferlens.analysis.promql;

import java.util.Arrays;

/**
 * The result of evaluating a function at every step of a {@link StepRange}: parallel arrays of
 * step timestamps and values. A NaN value means "no value at this step" (the series is absent from
 * the Prometheus result there); results that Prometheus reports as a NaN sample, such as
 * {@code histogram_quantile} of an empty histogram, are NaN too, so the two cannot be told apart.
 *
 * <p>Ownership: the arrays are not copied; whoever built the record hands them over and nobody may
 * change them afterwards.
 *
 * @param timestampsMs step timestamps in milliseconds, ascending
 * @param values one value per step, NaN where there is none
 */
public record StepSeries(long[] timestampsMs, double[] values) {

  /** @throws IllegalArgumentException if the arrays differ in length */
  public StepSeries {
    if (timestampsMs.length != values.length) {
      throw new IllegalArgumentException("timestamps and values differ in length: "
          + timestampsMs.length + " vs " + values.length);
    }
  }

  /**
   * @param steps the steps
   * @return a series with every value NaN (absent), the timestamps of {@code steps}
   */
  public static StepSeries absent(StepRange steps) {
    double[] v = new double[steps.count()];
    Arrays.fill(v, Double.NaN);
    return new StepSeries(steps.timestampsMs(), v);
  }

  /** @return the number of steps */
  public int size() {
    return values.length;
  }

  /**
   * @param i step index
   * @return the value at step {@code i}, NaN when absent
   */
  public double value(int i) {
    return values[i];
  }

  /**
   * @param i step index
   * @return whether step {@code i} has a (non-NaN) value
   */
  public boolean hasValue(int i) {
    return !Double.isNaN(values[i]);
  }
}
