package io.inferlens.analysis.promql;

import io.inferlens.storage.Series;

/**
 * The samples a PromQL range selector sees: those of a {@link Series} without its stale markers
 * (Prometheus 2.42 {@code promql/engine.go} {@code matrixIterSlice} skips {@code StaleNaN}), values
 * as doubles. Package-private scratch; arrays are fresh and owned by this object.
 */
final class FloatSamples {

  final long[] timestampsMs;
  final double[] values;
  final int size;

  private FloatSamples(long[] timestampsMs, double[] values, int size) {
    this.timestampsMs = timestampsMs;
    this.values = values;
    this.size = size;
  }

  static FloatSamples withoutStaleMarkers(Series series) {
    long[] ts = series.timestampsMs();
    long[] bits = series.valueBits();
    long[] outTs = new long[ts.length];
    double[] outV = new double[ts.length];
    int n = 0;
    for (int i = 0; i < ts.length; i++) {
      if (!StaleMarker.is(bits[i])) {
        outTs[n] = ts[i];
        outV[n] = Double.longBitsToDouble(bits[i]);
        n++;
      }
    }
    return new FloatSamples(outTs, outV, n);
  }
}
