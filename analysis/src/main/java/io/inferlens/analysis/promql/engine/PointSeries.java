package io.inferlens.analysis.promql.engine;

import io.inferlens.storage.LabelSet;
import java.util.Arrays;

/**
 * One series of a range vector or of a range query's result: a label set with points ascending
 * by time, each time at most once. Grows as points are appended; not thread safe.
 */
public final class PointSeries {

  private final LabelSet labels;
  private long[] timestampsMs;
  private double[] values;
  private int size;

  /**
   * @param labels the series' label set
   * @param capacity initial room for points, &ge; 0
   */
  public PointSeries(LabelSet labels, int capacity) {
    this.labels = labels;
    this.timestampsMs = new long[Math.max(capacity, 1)];
    this.values = new double[Math.max(capacity, 1)];
  }

  /**
   * @param labels the series' label set
   * @param timestampsMs point times, milliseconds, ascending; owned by this series from now on
   * @param values point values, parallel; owned by this series from now on
   * @param size how many leading entries are points
   */
  PointSeries(LabelSet labels, long[] timestampsMs, double[] values, int size) {
    this.labels = labels;
    this.timestampsMs = timestampsMs;
    this.values = values;
    this.size = size;
  }

  /**
   * Appends a point after the last one.
   *
   * @param timestampMs its time, milliseconds, after the last point's
   * @param value its value
   */
  public void add(long timestampMs, double value) {
    if (size == timestampsMs.length) {
      int n = size * 2;
      timestampsMs = Arrays.copyOf(timestampsMs, n);
      values = Arrays.copyOf(values, n);
    }
    timestampsMs[size] = timestampMs;
    values[size] = value;
    size++;
  }

  /** @return the label set */
  public LabelSet labels() {
    return labels;
  }

  /** @return the number of points */
  public int size() {
    return size;
  }

  /**
   * @param i point index, 0 to {@code size() - 1}
   * @return its time, milliseconds
   */
  public long timestampMs(int i) {
    return timestampsMs[i];
  }

  /**
   * @param i point index, 0 to {@code size() - 1}
   * @return its value
   */
  public double value(int i) {
    return values[i];
  }

  /** @return the times array, milliseconds; only the first {@link #size()} entries are points */
  long[] timestampsArray() {
    return timestampsMs;
  }

  /** @return the values array; only the first {@link #size()} entries are points */
  double[] valuesArray() {
    return values;
  }

  /**
   * @param newLabels the label set of the copy
   * @return a series with the same points under other labels (the arrays are shared)
   */
  PointSeries relabel(LabelSet newLabels) {
    return new PointSeries(newLabels, timestampsMs, values, size);
  }
}
