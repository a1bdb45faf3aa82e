package io.inferlens.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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

  @Test
  void layoutOneBlocksWithDerivedColumnsStillDecode() {
    for (RollupBlock b : new RollupBlock[] {block(i -> 3.0 * i), block(i -> Math.cos(i) * 7)}) {
      byte[] old = encodeLayout1(b, true);
      assertThat(old[0]).as("layout 1 starts with the interval count").isEqualTo((byte) 6);
      assertSameBits(RollupBlock.decode(old), b, RollupBlock.ALL_COLUMNS);
      assertSameBits(RollupBlock.decode(old, 1 << 6), b, 1 << 6);
    }
    assertThat(RollupBlock.decode(new byte[] {0}).size).as("the empty block").isZero();
  }

  /**
   * Layout 2 stores the interval starts once: every stored column after the counts is about 11
   * bytes (count and grid header) smaller than in layout 1.
   */
  @Test
  void layoutTwoStoresTheTimeAxisOnce() {
    RollupBlock counter = block(i -> 1000.0 + 3.0 * i);
    RollupBlock gauge = block(i -> Math.round(Math.sin(i / 3.0) * 1000) / 100.0);
    for (RollupBlock b : new RollupBlock[] {counter, gauge}) {
      byte[] enc = b.encode(new ChunkCodec());
      int stored = 0;
      for (int len : columnLengths(enc)) {
        stored += len > 0 ? 1 : 0;
      }
      int old = encodeLayout1(b, true).length;
      assertThat(old - enc.length).as("bytes saved over %d stored columns", stored)
          .isGreaterThanOrEqualTo(2 + 9 * (stored - 1));
      assertSameBits(RollupBlock.decode(enc), b, RollupBlock.ALL_COLUMNS);
    }
  }

  /** Random blocks of every kind of value, gaps and special values round-trip in layout 2. */
  @Test
  void randomBlocksRoundTripBitForBit() {
    java.util.SplittableRandom rnd = new java.util.SplittableRandom(17);
    for (int round = 0; round < 300; round++) {
      int n = rnd.nextInt(1, 600);
      long[] ts = new long[n];
      long[] bits = new long[n];
      long t = T0 + rnd.nextInt(0, 300_000);
      double v = rnd.nextInt(0, 1000);
      int shape = round % 5;
      for (int i = 0; i < n; i++) {
        t += rnd.nextInt(10) == 0 ? rnd.nextLong(15_000, 3_600_000) : 15_000 + rnd.nextInt(-30, 31);
        ts[i] = t;
        v = switch (shape) {
          case 0 -> v + rnd.nextInt(0, 20); // counter
          case 1 -> rnd.nextInt(8) == 0 ? 0 : v + rnd.nextInt(0, 5); // counter with resets
          case 2 -> Math.round(rnd.nextGaussian() * 1e4) / 1e3; // decimal gauge
          case 3 -> rnd.nextDouble() * 1e9; // full-mantissa gauge
          default -> rnd.nextInt(6) == 0 ? Double.NaN : v + 0.25; // NaN inside
        };
        bits[i] = rnd.nextInt(40) == 0 ? RollupBlock.STALE_NAN_BITS
            : rnd.nextInt(60) == 0 ? Double.doubleToRawLongBits(-0.0)
            : Double.doubleToRawLongBits(v);
      }
      RollupBlock b = RollupBlock.compute(ts, bits, n, FIVE_MINUTES);
      byte[] enc = b.encode(new ChunkCodec());
      assertSameBits(RollupBlock.decode(enc), b, RollupBlock.ALL_COLUMNS);
      assertSameBits(RollupBlock.decode(enc, 1 << 3 | 1 << 6), b, 1 << 3 | 1 << 6);
    }
  }

  @Test
  void corruptLayoutTwoBlocksAreRefused() {
    byte[] enc = block(i -> Math.sin(i) * 3).encode(new ChunkCodec());
    byte[] layout3 = enc.clone();
    layout3[1] = 3;
    assertThatThrownBy(() -> RollupBlock.decode(layout3))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("layout 3");
    byte[] truncated = java.util.Arrays.copyOf(enc, enc.length - 1);
    assertThatThrownBy(() -> RollupBlock.decode(truncated))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("corrupt rollup block");
    byte[] noIntervals = {0, 2, 0};
    assertThatThrownBy(() -> RollupBlock.decode(noIntervals))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("no intervals");
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

  /** The block as written before derived columns: layout 1, every column stored. */
  private static byte[] encodeAllColumns(RollupBlock b) {
    return encodeLayout1(b, false);
  }

  /**
   * The block in layout 1 (every column a full chunk), written independently of the code under
   * test; with {@code leaveDerived} min, max and increase are left out where a reader derives
   * them bit for bit, as layout-1 blocks were written before layout 2.
   */
  private static byte[] encodeLayout1(RollupBlock b, boolean leaveDerived) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    varint(out, b.size);
    ChunkCodec codec = new ChunkCodec();
    double[][] cols = {null, b.min, b.max, b.sum, b.first, b.last, b.increase};
    for (int c = 0; c < 7; c++) {
      long[] col = new long[b.size];
      for (int i = 0; i < b.size; i++) {
        col[i] = Double.doubleToRawLongBits(c == 0 ? (double) b.counts[i] : cols[c][i]);
      }
      if (leaveDerived && (c == 1 || c == 2 || c == 6)) {
        boolean same = true;
        for (int i = 0; i < b.size; i++) {
          double d = c == 1 ? b.first[i] : c == 2 ? b.last[i] : b.last[i] - b.first[i];
          same &= col[i] == Double.doubleToRawLongBits(d);
        }
        if (same) {
          varint(out, 0);
          continue;
        }
      }
      byte[] chunk = codec.encode(b.starts, col, b.size);
      varint(out, chunk.length);
      out.writeBytes(chunk);
    }
    return out.toByteArray();
  }

  private static int[] columnLengths(byte[] enc) {
    assertThat(enc[0]).as("layout 2 mark").isEqualTo((byte) 0);
    assertThat(enc[1]).as("layout 2").isEqualTo((byte) 2);
    int[] p = {2};
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
