package io.inferlens.analysis.promql;

import io.inferlens.storage.LabelSet;
import io.inferlens.storage.Series;

/** Builds small series for the tests; time in whole seconds for readability. */
final class TestSeries {

  static final long S = 1000L;

  private TestSeries() {}

  /** A series from alternating (timestamp in seconds, value) pairs. */
  static Series of(LabelSet labels, double... secondsAndValues) {
    int n = secondsAndValues.length / 2;
    long[] ts = new long[n];
    long[] bits = new long[n];
    for (int i = 0; i < n; i++) {
      ts[i] = (long) (secondsAndValues[2 * i] * S);
      bits[i] = Double.doubleToRawLongBits(secondsAndValues[2 * i + 1]);
    }
    return new Series(labels, ts, bits);
  }

  static Series of(double... secondsAndValues) {
    return of(LabelSet.of("__name__", "x"), secondsAndValues);
  }

  /** Replaces the value of sample {@code i} with the stale marker. */
  static Series withStaleAt(Series s, int i) {
    long[] bits = s.valueBits().clone();
    bits[i] = StaleMarker.BITS;
    return new Series(s.labels(), s.timestampsMs(), bits);
  }

  /** The single step at {@code seconds}. */
  static StepRange at(long seconds) {
    return StepRange.instant(seconds * S);
  }
}
