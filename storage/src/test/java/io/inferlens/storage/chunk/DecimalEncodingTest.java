package io.inferlens.storage.chunk;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The decimal plan's cost model: the bits {@link DecimalEncoding#plan} predicts are exactly the
 * bits {@code writeHeader} and {@code writeBits} then write (the Rice cost is counted from
 * histograms, not by encoding; ChunkGoldenBytesTest freezes which plan is chosen).
 */
class DecimalEncodingTest {

  @Test
  void plannedBitsAreTheWrittenBits() {
    Random r = new Random(7);
    for (int round = 0; round < 400; round++) {
      int n = 2 + r.nextInt(600);
      long[] vb = values(r, n, round % 6);
      for (boolean raw : new boolean[] {false, true}) {
        DecimalEncoding e = new DecimalEncoding(raw);
        e.plan(vb, n);
        if (e.bits < 0) {
          continue;
        }
        BitWriter w = new BitWriter();
        e.writeHeader(w, vb, n);
        e.writeBits(w, n);
        assertThat(w.bitCount()).as("round %d raw %s n %d", round, raw, n).isEqualTo(e.bits);
      }
    }
  }

  /** Value shapes: steady counters, noisy gauges, decimals with outliers, raw ratios, zeros. */
  private static long[] values(Random r, int n, int shape) {
    long[] vb = new long[n];
    double v = r.nextInt(1000);
    for (int i = 0; i < n; i++) {
      switch (shape) {
        case 0 -> v += 15; // a steady counter
        case 1 -> v += r.nextInt(40); // a counter of varying rate
        case 2 -> v = Math.round(r.nextGaussian() * 1e4) / 100.0; // a 2-decimal gauge
        case 3 -> v = r.nextInt(20) == 0 ? r.nextInt(1 << 30) : 1980; // a clock that drops
        case 4 -> v = 0.5 + r.nextDouble() / 1e3; // full-mantissa ratio
        default -> v = r.nextInt(3) == 0 ? 0 : r.nextInt(4); // mostly zeros
      }
      vb[i] = Double.doubleToRawLongBits(v);
    }
    return vb;
  }
}
