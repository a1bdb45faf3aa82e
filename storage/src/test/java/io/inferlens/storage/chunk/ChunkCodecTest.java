package io.inferlens.storage.chunk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

class ChunkCodecTest {

  static final long STALE_NAN = 0x7ff0000000000002L;
  private static final long T0 = 1_796_000_000_000L;

  private final ChunkCodec codec = new ChunkCodec();

  /** Encodes, decodes, compares bits; returns the header byte so tests can assert the kind. */
  private int roundTrip(long[] t, long[] v) {
    byte[] b = codec.encode(t, v, t.length);
    assertThat(ChunkCodec.count(b)).isEqualTo(t.length);
    long[] t2 = new long[t.length];
    long[] v2 = new long[t.length];
    assertThat(ChunkCodec.decode(b, t2, v2)).isEqualTo(t.length);
    assertThat(t2).as("timestamps").isEqualTo(t);
    for (int i = 0; i < v.length; i++) {
      if (v2[i] != v[i]) {
        throw new AssertionError(
            "value " + i + ": " + Long.toHexString(v[i]) + " came back as "
                + Long.toHexString(v2[i]) + " (" + Double.longBitsToDouble(v[i]) + ")");
      }
    }
    return b[0] & 0xFF;
  }

  private static long[] bits(double... d) {
    long[] b = new long[d.length];
    for (int i = 0; i < d.length; i++) {
      b[i] = Double.doubleToRawLongBits(d[i]);
    }
    return b;
  }

  private static long[] grid(int n, long intervalMs, SplittableRandom rnd, double jitterFrac) {
    long[] t = new long[n];
    for (int i = 0; i < n; i++) {
      long j = rnd.nextDouble() < jitterFrac ? rnd.nextInt(-25, 26) : 0;
      t[i] = T0 + i * intervalMs + j;
    }
    return t;
  }

  private static long[] values(int n, LongSupplier s) {
    long[] v = new long[n];
    for (int i = 0; i < n; i++) {
      v[i] = s.getAsLong();
    }
    return v;
  }

  private static int valueKind(int header) {
    return header & 7;
  }

  private static int tsKind(int header) {
    return (header >>> 3) & 1;
  }

  /**
   * Zeros next to values with 19 or more decimals: rescaling a zero mantissa to such a scale once
   * indexed past the table of long powers of ten (found by the store's rollup columns, sums of
   * small latencies).
   */
  @Test
  void zerosBesideValuesWithManyDecimalsRoundTrip() {
    long[] t = {0, 15_000, 30_000, 45_000, 60_000};
    roundTrip(t, bits(0.0, 3e-20, 0.0, 3e-20, 0.0));
    roundTrip(t, bits(0.0, 1.2345678901234567e-5, 0.0, 0.0, 7e-22));
    roundTrip(t, bits(-0.0, 0.0, 5e-19, 0.0, 0.0));
  }

  @Test
  void encodeFastRoundTripsBitForBit() {
    SplittableRandom rnd = new SplittableRandom(5);
    for (int round = 0; round < 200; round++) {
      int n = rnd.nextInt(1, 150);
      long[] t = grid(n, 15_000, rnd, 0.2);
      long[] v = values(n, () -> rnd.nextInt(0, 10) == 0 ? 0x7ff0000000000002L
          : Double.doubleToRawLongBits(rnd.nextInt(0, 100) / 8.0));
      byte[] b = codec.encodeFast(t, v, n);
      long[] t2 = new long[n];
      long[] v2 = new long[n];
      assertThat(ChunkCodec.decode(b, t2, v2)).isEqualTo(n);
      assertThat(t2).isEqualTo(t);
      assertThat(v2).isEqualTo(v);
    }
  }

  @Test
  void kthSmallestEqualsSortedIndex() {
    SplittableRandom rnd = new SplittableRandom(11);
    for (int round = 0; round < 2000; round++) {
      int m = rnd.nextInt(1, 200);
      long[] a = new long[m];
      int spread = rnd.nextInt(1, 1000);
      for (int i = 0; i < m; i++) {
        a[i] = rnd.nextInt(0, 4) == 0 ? rnd.nextLong() : rnd.nextInt(-spread, spread);
      }
      long[] sorted = a.clone();
      java.util.Arrays.sort(sorted);
      int k = rnd.nextInt(0, m);
      assertThat(DecimalEncoding.kthSmallest(a.clone(), m, k)).isEqualTo(sorted[k]);
    }
  }

  @Test
  void encodeSameTimestampsGivesTheBytesOfEncode() {
    SplittableRandom rnd = new SplittableRandom(7);
    for (int round = 0; round < 30; round++) {
      int n = rnd.nextInt(1, 300);
      long[] t = grid(n, 300_000, rnd, 0.1);
      ChunkCodec a = new ChunkCodec();
      ChunkCodec b = new ChunkCodec();
      a.encode(t, values(n, () -> rnd.nextLong()), n);
      for (int col = 0; col < 4; col++) {
        long[] v = values(n, () -> Double.doubleToRawLongBits(rnd.nextInt(0, 50) / 4.0));
        assertThat(a.encodeSameTimestamps(t, v, n)).isEqualTo(b.encode(t, v, n));
      }
    }
    ChunkCodec c = new ChunkCodec();
    long[] t = {1, 2};
    c.encode(t, new long[] {1, 2}, 2);
    org.assertj.core.api.Assertions.assertThatThrownBy(
        () -> c.encodeSameTimestamps(t.clone(), new long[] {1, 2}, 2))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void integerCountersOnAJitteredGridUseDecimalAndGrid() {
    SplittableRandom rnd = new SplittableRandom(1);
    for (int round = 0; round < 50; round++) {
      int n = rnd.nextInt(1, 600);
      long[] c = {rnd.nextLong(0, 1L << 40)};
      long[] v = values(n, () -> Double.doubleToRawLongBits(c[0] += rnd.nextInt(0, 200)));
      int h = roundTrip(grid(n, 15_000, rnd, 0.15), v);
      if (n > 1) {
        assertThat(valueKind(h)).isEqualTo(ChunkCodec.VALUES_DECIMAL);
        assertThat(tsKind(h)).isEqualTo(TimestampEncoding.GRID);
      }
    }
  }

  @Test
  void decimalsOfOneToSixDigitsRoundTrip() {
    SplittableRandom rnd = new SplittableRandom(2);
    for (int digits = 1; digits <= 6; digits++) {
      for (int round = 0; round < 20; round++) {
        int n = rnd.nextInt(2, 500);
        long scale = (long) Math.pow(10, rnd.nextInt(0, 7));
        double max = Math.pow(10, digits);
        long[] v =
            values(n, () -> Double.doubleToRawLongBits(rnd.nextLong((long) max) / (double) scale));
        int h = roundTrip(grid(n, 15_000, rnd, 0.15), v);
        assertThat(valueKind(h)).isEqualTo(ChunkCodec.VALUES_DECIMAL);
      }
    }
  }

  @Test
  void powerWithThreeDecimalsAndCpuSecondsWithTwoAreDecimals() {
    SplittableRandom rnd = new SplittableRandom(3);
    int n = 480;
    long[] power = values(n, () -> Double.doubleToRawLongBits(
        Math.round((110 + 560 * rnd.nextDouble()) * 1000) / 1000.0));
    double[] cpu = {1234.5};
    long[] cpuS = values(n, () -> Double.doubleToRawLongBits(
        cpu[0] = Math.round((cpu[0] + 15 * (1.05 + 0.25 * rnd.nextDouble())) * 100) / 100.0));
    assertThat(valueKind(roundTrip(grid(n, 15_000, rnd, 0.15), power)))
        .isEqualTo(ChunkCodec.VALUES_DECIMAL);
    assertThat(valueKind(roundTrip(grid(n, 15_000, rnd, 0.15), cpuS)))
        .isEqualTo(ChunkCodec.VALUES_DECIMAL);
  }

  @Test
  void fullMantissaSumsUseRawIntegers() {
    SplittableRandom rnd = new SplittableRandom(4);
    for (int round = 0; round < 50; round++) {
      int n = rnd.nextInt(60, 600);
      double[] sum = {rnd.nextDouble() * 100};
      long[] v =
          values(n, () -> Double.doubleToRawLongBits(sum[0] += Math.exp(rnd.nextGaussian())));
      assertThat(valueKind(roundTrip(grid(n, 15_000, rnd, 0.15), v)))
          .isEqualTo(ChunkCodec.VALUES_RAW_INTEGERS);
    }
  }

  @Test
  void randomDoublesThatRepeatUseXor() {
    SplittableRandom rnd = new SplittableRandom(12);
    for (int round = 0; round < 50; round++) {
      int n = rnd.nextInt(8, 600);
      long[] v = new long[n];
      for (int i = 0; i < n; i++) {
        v[i] = i % 4 == 0 ? Double.doubleToRawLongBits(rnd.nextGaussian() * 1e3) : v[i - 1];
      }
      assertThat(valueKind(roundTrip(grid(n, 15_000, rnd, 0.15), v)))
          .isEqualTo(ChunkCodec.VALUES_XOR);
    }
  }

  @Test
  void randomDoublesRoundTripWhicheverKindWins() {
    SplittableRandom rnd = new SplittableRandom(13);
    for (int round = 0; round < 100; round++) {
      int n = rnd.nextInt(2, 600);
      double scale = Math.pow(10, rnd.nextInt(-300, 300));
      long[] v = values(n, () -> Double.doubleToRawLongBits(rnd.nextGaussian() * scale));
      assertThat(valueKind(roundTrip(grid(n, 15_000, rnd, 0.15), v)))
          .isIn(ChunkCodec.VALUES_XOR, ChunkCodec.VALUES_RAW_INTEGERS);
    }
  }

  @Test
  void arbitraryBitPatternsRoundTrip() {
    SplittableRandom rnd = new SplittableRandom(5);
    for (int round = 0; round < 200; round++) {
      int n = rnd.nextInt(1, 300);
      long[] t = values(n, rnd::nextLong);
      long[] v = values(n, rnd::nextLong); // includes NaNs with payloads, denormals, ...
      roundTrip(t, v);
    }
  }

  @Test
  void specialValuesInsideDecimalBlocksAreExceptions() {
    long[] specials = {
      STALE_NAN,
      0x7ff8000000000000L, // canonical NaN
      0xfff8000000000001L, // negative NaN with payload
      0x7ff0000000000000L, // +Inf
      0xfff0000000000000L, // -Inf
      0x8000000000000000L, // -0.0
      Double.doubleToRawLongBits(Double.MIN_VALUE),
      Double.doubleToRawLongBits(Double.MAX_VALUE),
      Double.doubleToRawLongBits(0.2713082437275986),
    };
    SplittableRandom rnd = new SplittableRandom(6);
    for (long special : specials) {
      int n = 240;
      long[] c = {1000};
      long[] v = values(n, () -> Double.doubleToRawLongBits(c[0] += rnd.nextInt(0, 50)));
      v[0] = special;
      v[17] = special;
      v[n - 1] = special;
      int h = roundTrip(grid(n, 15_000, rnd, 0.15), v);
      assertThat(valueKind(h)).as(Long.toHexString(special)).isEqualTo(ChunkCodec.VALUES_DECIMAL);
    }
  }

  @Test
  void mostlySpecialValuesAreNotDecimal() {
    long[] v = new long[100];
    Arrays.fill(v, STALE_NAN);
    for (int i = 0; i < 100; i += 3) {
      v[i] = Double.doubleToRawLongBits(i);
    }
    assertThat(valueKind(roundTrip(grid(100, 15_000, new SplittableRandom(7), 0), v)))
        .isIn(ChunkCodec.VALUES_XOR, ChunkCodec.VALUES_RAW_INTEGERS);
  }

  @Test
  void constantBlocksIncludingStaleMarkersAndNegativeZero() {
    for (long c : new long[] {0, 0x8000000000000000L, STALE_NAN, Double.doubleToRawLongBits(1)}) {
      long[] v = new long[120];
      Arrays.fill(v, c);
      assertThat(valueKind(roundTrip(grid(120, 15_000, new SplittableRandom(8), 0.15), v)))
          .isEqualTo(ChunkCodec.VALUES_CONST);
    }
  }

  @Test
  void hugeAndTinyMagnitudes() {
    roundTrip(new long[] {1, 2, 3, 4}, bits(1e300, 2e300, 3e300, 1e-300));
    roundTrip(new long[] {1, 2, 3, 4}, bits(1e20, 2e21, 3.5e22, 12345e18)); // negative scale
    roundTrip(new long[] {1, 2, 3, 4}, bits(9007199254740993.0, 9007199254740992.0, 1, -1));
    roundTrip(new long[] {1, 2, 3, 4}, bits(1e-5, 2.5e-7, 1e-22, 123456789e-22));
    roundTrip(new long[] {1, 2, 3, 4}, bits(-1e-5, -2.5, -1e22, 0));
    // mixed scales: integers and 0.1 share scale 1; a 17-digit value becomes an exception
    int h = roundTrip(new long[] {1, 2, 3, 4, 5}, bits(100, 0.1, 7, 0.1 + 0.2, 5));
    assertThat(valueKind(h)).isEqualTo(ChunkCodec.VALUES_DECIMAL);
    // trailing zeros: MiB in bytes
    int h2 = roundTrip(new long[] {1, 2, 3}, bits(81_559_000_000.0, 81_000_000_000.0, 0));
    assertThat(valueKind(h2)).isEqualTo(ChunkCodec.VALUES_DECIMAL);
  }

  @Test
  void irregularNegativeAndExtremeTimestamps() {
    SplittableRandom rnd = new SplittableRandom(9);
    for (int round = 0; round < 100; round++) {
      int n = rnd.nextInt(1, 400);
      long[] t = new long[n];
      long x = rnd.nextLong(-(1L << 45), 1L << 45);
      for (int i = 0; i < n; i++) {
        t[i] = x += rnd.nextInt(0, 100_000);
      }
      roundTrip(t, values(n, () -> Double.doubleToRawLongBits(rnd.nextInt(100))));
    }
    roundTrip(new long[] {Long.MIN_VALUE, -1, 0, Long.MAX_VALUE}, bits(1, 2, 3, 4));
    int h = roundTrip(new long[] {Long.MIN_VALUE, Long.MAX_VALUE}, bits(1, 2));
    assertThat(tsKind(h)).isEqualTo(TimestampEncoding.RAW);
    roundTrip(new long[] {5, 5, 5, 4, 3, -100}, bits(1, 2, 3, 4, 5, 6)); // unsorted, repeated
    // gaps of whole intervals and a jittered first sample stay on the grid
    int g = roundTrip(new long[] {T0 + 7, T0 + 15_000, T0 + 30_000, T0 + 90_000, T0 + 105_000},
        bits(1, 2, 3, 4, 5));
    assertThat(tsKind(g)).isEqualTo(TimestampEncoding.GRID);
  }

  @Test
  void singleSampleAndMaxBlock() {
    roundTrip(new long[] {-5}, new long[] {STALE_NAN});
    roundTrip(new long[] {T0}, bits(0.2713082437275986));
    SplittableRandom rnd = new SplittableRandom(10);
    int n = ChunkCodec.MAX_SAMPLES;
    roundTrip(
        grid(n, 1_000, rnd, 0.15), values(n, () -> Double.doubleToRawLongBits(rnd.nextInt(9))));
    roundTrip(grid(n, 1_000, rnd, 0.15), values(n, rnd::nextLong));
  }

  @Test
  void outOfRangeCountsAreRejectedWithTheLimit() {
    assertThatThrownBy(() -> codec.encode(new long[0], new long[0], 0))
        .hasMessageContaining("1.." + ChunkCodec.MAX_SAMPLES);
    long[] big = new long[ChunkCodec.MAX_SAMPLES + 1];
    assertThatThrownBy(() -> codec.encode(big, big, big.length))
        .hasMessageContaining("1.." + ChunkCodec.MAX_SAMPLES);
    assertThatThrownBy(() -> codec.encode(new long[2], new long[1], 2))
        .hasMessageContaining("exceeds the arrays");
  }

  @Test
  void corruptAndTruncatedChunksThrowInsteadOfReturningGarbage() {
    SplittableRandom rnd = new SplittableRandom(11);
    long[] c = {0};
    byte[] b = codec.encode(grid(120, 15_000, rnd, 0.15),
        values(120, () -> Double.doubleToRawLongBits(c[0] += rnd.nextInt(50))), 120);
    long[] t = new long[200];
    long[] v = new long[200];
    for (int len = 0; len < b.length; len++) {
      byte[] cut = Arrays.copyOf(b, len);
      assertThatThrownBy(() -> ChunkCodec.decode(cut, t, v))
          .isInstanceOf(IllegalArgumentException.class);
    }
    byte[] longer = Arrays.copyOf(b, b.length + 1);
    assertThatThrownBy(() -> ChunkCodec.decode(longer, t, v))
        .hasMessageContaining("after the last");
    byte[] v2 = b.clone();
    v2[0] = 0x20;
    assertThatThrownBy(() -> ChunkCodec.decode(v2, t, v)).hasMessageContaining("version 2");
    assertThatThrownBy(() -> ChunkCodec.decode(b, new long[10], new long[10]))
        .hasMessageContaining("120 samples");
  }

  @Test
  void randomlyDamagedChunksDecodeOrThrowIllegalArgumentOnly() {
    SplittableRandom rnd = new SplittableRandom(14);
    long[] t = new long[ChunkCodec.MAX_SAMPLES];
    long[] v = new long[ChunkCodec.MAX_SAMPLES];
    int decoded = 0;
    for (int round = 0; round < 3000; round++) {
      int n = rnd.nextInt(1, 200);
      int shape = round % 4;
      long[] c = {rnd.nextLong(1000)};
      long[] values = values(n, () -> switch (shape) {
        case 0 -> Double.doubleToRawLongBits(c[0] += rnd.nextInt(30));
        case 1 -> Double.doubleToRawLongBits(rnd.nextDouble());
        case 2 -> rnd.nextDouble() < 0.1 ? STALE_NAN : Double.doubleToRawLongBits(rnd.nextInt(5));
        default -> Double.doubleToRawLongBits(c[0] += rnd.nextDouble());
      });
      byte[] b = codec.encode(grid(n, 15_000, rnd, 0.15), values, n);
      for (int flips = 1 + rnd.nextInt(3); flips > 0; flips--) {
        b[rnd.nextInt(b.length)] ^= (byte) (1 << rnd.nextInt(8));
      }
      try {
        ChunkCodec.decode(b, t, v);
        decoded++;
      } catch (IllegalArgumentException expected) {
        // the only failure a damaged chunk may cause
      }
    }
    assertThat(decoded).as("some damage goes unnoticed: there is no checksum").isPositive();
  }

  /**
   * A values-only column is a chunk's value bytes behind one kind byte: for every kind of value
   * (constant, decimal, raw integers, XOR, special values) it round-trips bit for bit, is the
   * chunk minus exactly its count and timestamp header, and any trailing byte or unknown kind is
   * refused.
   */
  @Test
  void valuesOnlyColumnsRoundTripAndAreTheChunkWithoutItsTimeAxis() {
    SplittableRandom rnd = new SplittableRandom(21);
    for (int round = 0; round < 400; round++) {
      int n = rnd.nextInt(1, 400);
      int shape = round % 6;
      long[] v = values(n, () -> switch (shape) {
        case 0 -> Double.doubleToRawLongBits(7.0);
        case 1 -> Double.doubleToRawLongBits(rnd.nextInt(0, 100_000) / 100.0);
        case 2 -> Double.doubleToRawLongBits(1e6 + rnd.nextDouble());
        case 3 -> rnd.nextLong();
        case 4 -> rnd.nextInt(4) == 0 ? STALE_NAN : Double.doubleToRawLongBits(rnd.nextInt(50));
        default -> Double.doubleToRawLongBits(rnd.nextBoolean() ? -0.0 : Double.NaN);
      });
      byte[] col = codec.encodeValues(v, n);
      byte[] padded = new byte[col.length + 5];
      System.arraycopy(col, 0, padded, 3, col.length);
      long[] got = new long[n + 2];
      ChunkCodec.decodeValues(padded, 3, col.length, got, n);
      assertThat(Arrays.copyOf(got, n)).as("round %d", round).isEqualTo(v);

      // Same value kind and value bytes as the chunk of these values on the same time axis.
      long[] t = grid(n, 15_000, rnd, 0.0);
      byte[] chunk = codec.encode(t, v, n);
      assertThat(col[0]).isEqualTo((byte) valueKind(chunk[0] & 0xFF));
      assertThat(col.length).isLessThan(chunk.length + 1);

      assertThatThrownBy(() -> ChunkCodec.decodeValues(padded, 3, col.length + 1, got, n))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("corrupt");
    }
    byte[] unknownKind = {5, 0, 0, 0, 0, 0, 0, 0, 0};
    assertThatThrownBy(() -> ChunkCodec.decodeValues(unknownKind, 0, unknownKind.length,
        new long[1], 1)).hasMessageContaining("value kind 5");
    assertThatThrownBy(() -> codec.encodeValues(new long[0], 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ChunkCodec.decodeValues(new byte[] {0}, 0, 1, new long[1], 2))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void chunkKeepsRangeAndIterates() {
    long[] t = {T0 + 30_000, T0, T0 + 15_000};
    long[] v = bits(3, 1, 2);
    Chunk ch = Chunk.encode(codec, t, v, 3);
    assertThat(ch.minTimeMs()).isEqualTo(T0);
    assertThat(ch.maxTimeMs()).isEqualTo(T0 + 30_000);
    assertThat(ch.count()).isEqualTo(3);
    Chunk again = Chunk.wrap(ch.bytes());
    assertThat(again.minTimeMs()).isEqualTo(T0);
    assertThat(again.maxTimeMs()).isEqualTo(T0 + 30_000);
    Chunk.Cursor it = again.cursor();
    int i = 0;
    while (it.next()) {
      assertThat(it.timestampMs()).isEqualTo(t[i]);
      assertThat(it.value()).isEqualTo(Double.longBitsToDouble(v[i]));
      i++;
    }
    assertThat(i).isEqualTo(3);
    assertThat(it.next()).isFalse();
    assertThatThrownBy(it::timestampMs).hasMessageContaining("next()");
  }
}
