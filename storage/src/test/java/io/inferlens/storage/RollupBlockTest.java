package io.inferlens.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.inferlens.storage.chunk.ChunkCodec;
import java.io.ByteArrayOutputStream;
import org.junit.jupiter.api.Test;

/** Rollup block encoding: derived columns, masks, and blocks written with all seven columns. */
class RollupBlockTest {

  private static final long T0 = 1_796_022_000_000L;
  private static final long FIVE_MINUTES = 300_000L;

  @Test
  void aCounterStoresFourColumnsAndDecodesAllSevenExactly() {
    RollupBlock b = block(i -> 3.0 * i); // rises within every interval: min=first, max=last
    byte[] enc = b.encode(new ChunkCodec());
    int[] lengths = columnLengths(enc);
    assertThat(lengths[1]).as("min").isZero();
    assertThat(lengths[2]).as("max").isZero();
    assertThat(lengths[6]).as("increase").isZero();
    assertThat(lengths[0]).isPositive();
    assertThat(lengths[3]).isPositive();
    assertSameBits(RollupBlock.decode(enc), b, RollupBlock.ALL_COLUMNS);
    assertThat(enc.length).isLessThan(encodeAllColumns(b).length);
  }

  @Test
  void aGaugeAndAResetKeepTheirColumns() {
    // A gauge moving up and down, and a counter reset inside an interval: min, max and increase
    // are not first, last and last - first there, so they are stored.
    RollupBlock gauge = block(i -> Math.sin(i / 3.0) * 10);
    int[] g = columnLengths(gauge.encode(new ChunkCodec()));
    assertThat(g[1]).isPositive();
    assertThat(g[2]).isPositive();
    assertSameBits(RollupBlock.decode(gauge.encode(new ChunkCodec())), gauge,
        RollupBlock.ALL_COLUMNS);
    RollupBlock reset = block(i -> i == 47 ? 0.0 : i >= 47 ? i - 47.0 : 1000.0 + i);
    int[] r = columnLengths(reset.encode(new ChunkCodec()));
    assertThat(r[6]).as("increase across a reset").isPositive();
    assertSameBits(RollupBlock.decode(reset.encode(new ChunkCodec())), reset,
        RollupBlock.ALL_COLUMNS);
  }

  @Test
  void aMaskOfDerivedColumnsDecodesThemWithoutExposingFirstAndLast() {
    RollupBlock b = block(i -> 2.5 * i);
    int increaseOnly = 1 << 6;
    RollupBlock got = RollupBlock.decode(b.encode(new ChunkCodec()), increaseOnly);
    for (int i = 0; i < b.size; i++) {
      assertThat(Double.doubleToRawLongBits(got.increase[i]))
          .isEqualTo(Double.doubleToRawLongBits(b.increase[i]));
      assertThat(got.first[i]).isNaN();
      assertThat(got.last[i]).isNaN();
      assertThat(got.min[i]).isNaN();
      assertThat(got.counts[i]).isEqualTo(b.counts[i]);
    }
  }

  @Test
  void minAndMaxSkipNanAsPromqlsOverTimeFunctionsDo() {
    // Interval 0: values with one NaN in the middle; interval 1: NaN only.
    RollupBlock b = block(i -> i < 20 ? (i == 7 ? Double.NaN : 100.0 - i) : Double.NaN);
    assertThat(b.min[0]).isEqualTo(81.0);
    assertThat(b.max[0]).isEqualTo(100.0);
    assertThat(b.sum[0]).isNaN();
    assertThat(b.min[1]).isNaN();
    assertThat(b.max[1]).isNaN();
    assertSameBits(RollupBlock.decode(b.encode(new ChunkCodec())), b, RollupBlock.ALL_COLUMNS);
  }

  @Test
  void blocksWithAllSevenColumnsStoredStillDecode() {
    RollupBlock b = block(i -> 0.1 * i);
    assertSameBits(RollupBlock.decode(encodeAllColumns(b)), b, RollupBlock.ALL_COLUMNS);
  }

  private interface Values {
    double at(int i);
  }

  /** 120 samples at 15 s from {@link #T0}: six 5-minute intervals. */
  private static RollupBlock block(Values v) {
    int n = 120;
    long[] ts = new long[n];
    long[] bits = new long[n];
    for (int i = 0; i < n; i++) {
      ts[i] = T0 + i * 15_000L;
      bits[i] = Double.doubleToRawLongBits(v.at(i));
    }
    RollupBlock b = RollupBlock.compute(ts, bits, n, FIVE_MINUTES);
    assertThat(b.size).isEqualTo(6);
    return b;
  }

  /** The block as written before derived columns: every column stored. */
  private static byte[] encodeAllColumns(RollupBlock b) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    varint(out, b.size);
    ChunkCodec codec = new ChunkCodec();
    double[][] cols = {null, b.min, b.max, b.sum, b.first, b.last, b.increase};
    for (int c = 0; c < 7; c++) {
      long[] col = new long[b.size];
      for (int i = 0; i < b.size; i++) {
        col[i] = Double.doubleToRawLongBits(c == 0 ? (double) b.counts[i] : cols[c][i]);
      }
      byte[] chunk = codec.encode(b.starts, col, b.size);
      varint(out, chunk.length);
      out.writeBytes(chunk);
    }
    return out.toByteArray();
  }

  private static int[] columnLengths(byte[] enc) {
    int[] p = {0};
    readVarint(enc, p);
    int[] lengths = new int[7];
    for (int c = 0; c < 7; c++) {
      lengths[c] = (int) readVarint(enc, p);
      p[0] += lengths[c];
    }
    assertThat(p[0]).isEqualTo(enc.length);
    return lengths;
  }

  private static void assertSameBits(RollupBlock got, RollupBlock want, int mask) {
    assertThat(got.size).isEqualTo(want.size);
    for (int i = 0; i < want.size; i++) {
      assertThat(got.starts[i]).isEqualTo(want.starts[i]);
      assertThat(got.counts[i]).isEqualTo(want.counts[i]);
      double[][] g = {got.min, got.max, got.sum, got.first, got.last, got.increase};
      double[][] w = {want.min, want.max, want.sum, want.first, want.last, want.increase};
      for (int c = 0; c < 6; c++) {
        if ((mask & (1 << (c + 1))) != 0) {
          assertThat(Double.doubleToRawLongBits(g[c][i])).as("column %d interval %d", c + 1, i)
              .isEqualTo(Double.doubleToRawLongBits(w[c][i]));
        }
      }
    }
  }

  private static void varint(ByteArrayOutputStream out, long v) {
    while ((v & ~0x7FL) != 0) {
      out.write((int) ((v & 0x7F) | 0x80));
      v >>>= 7;
    }
    out.write((int) v);
  }

  private static long readVarint(byte[] b, int[] p) {
    long v = 0;
    for (int shift = 0; ; shift += 7) {
      byte x = b[p[0]++];
      v |= (long) (x & 0x7F) << shift;
      if (x >= 0) {
        return v;
      }
    }
  }
}
