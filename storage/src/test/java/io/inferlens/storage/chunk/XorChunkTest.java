package io.inferlens.storage.chunk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** XOR chunks: a golden byte sequence derived by hand, and round trips of awkward sequences. */
class XorChunkTest {

  static final long STALE = 0x7ff0000000000002L;

  private static long bits(double d) {
    return Double.doubleToRawLongBits(d);
  }

  private static void assertRoundTrip(long[] ts, long[] vs) {
    byte[] chunk = XorChunk.encode(ts, vs, 0, ts.length);
    assertThat(XorChunk.sampleCount(chunk)).isEqualTo(ts.length);
    XorChunk.Samples back = XorChunk.decode(chunk);
    assertThat(back.timestampsMs()).containsExactly(ts);
    assertThat(back.valueBits()).containsExactly(vs);
  }

  /**
   * Samples (1000 ms, 1.0), (2000 ms, 1.0), (3015 ms, 2.0), encoded by hand:
   *
   * <pre>
   * 00 03                    sample count 3, big endian
   * D0 0F                    t0 = 1000: zigzag 2000 = 0b1111_1010000 → 0x50|0x80, 0x0F
   * 3F F0 00 00 00 00 00 00  v0 = 1.0, raw bits
   * E8 07                    t1 - t0 = 1000: uvarint 0x68|0x80, 0x07
   * then bits: '0'                                  v1 XOR v0 = 0
   *            '10' 00000000001111                  dod = 1015 - 1000 = 15 in 14 bits
   *            '11' 00001 001011 11111111111         v2 XOR v1 = 0x7FF0000000000000: leading 1,
   *                                                  11 significant bits, trailing 52
   * = 0100_0000 0000_0111 1110_0001 0010_1111 1111_1111 1(000_0000 padding)
   * = 40 07 E1 2F FF 80
   * </pre>
   */
  @Test
  void encodesThreeSamplesExactlyAsDerivedByHand() {
    byte[] chunk = XorChunk.encode(new long[] {1000, 2000, 3015},
        new long[] {bits(1.0), bits(1.0), bits(2.0)}, 0, 3);
    assertThat(chunk).containsExactly(
        0x00, 0x03,
        0xD0, 0x0F,
        0x3F, 0xF0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0xE8, 0x07,
        0x40, 0x07, 0xE1, 0x2F, 0xFF, 0x80);
    assertRoundTrip(new long[] {1000, 2000, 3015}, new long[] {bits(1.0), bits(1.0), bits(2.0)});
  }

  /**
   * One sample: header, zigzag varint of a negative timestamp, 64 raw bits — and one empty byte,
   * because Prometheus's bstream.writeByte always appends the next byte (a chunk whose last write
   * was whole bytes ends in a zero byte; seen byte for byte against Prometheus 2.42).
   */
  @Test
  void encodesOneSampleWithANegativeTimestamp() {
    byte[] chunk = XorChunk.encode(new long[] {-1}, new long[] {STALE}, 0, 1);
    // zigzag(-1) = 1
    assertThat(chunk).containsExactly(0x00, 0x01, 0x01,
        0x7F, 0xF0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00);
    assertRoundTrip(new long[] {-1}, new long[] {STALE});
  }

  @Test
  void roundTripsNanPayloadsStaleMarkersAndInfinities() {
    long[] vs = {bits(1.5), STALE, 0x7ff8000000000001L, 0xfff8000000000000L, bits(-0.0),
        bits(0.0), bits(Double.POSITIVE_INFINITY), bits(Double.NEGATIVE_INFINITY), STALE,
        bits(Double.MIN_VALUE), bits(Double.MAX_VALUE), 0x7ff0000000000001L, bits(42)};
    long[] ts = new long[vs.length];
    for (int i = 0; i < ts.length; i++) {
      ts[i] = 1_700_000_000_000L + i * 15_000L;
    }
    assertRoundTrip(ts, vs);
  }

  /** Every delta-of-delta bucket and both edges of each, around the asymmetric ranges. */
  @Test
  void roundTripsIrregularTimestampsAcrossEveryDodBucket() {
    long[] dods = {0, 1, -1, 8191, -8191, 8192, -8192, 8193, 65535, -65535, 65536, -65536, 65537,
        524287, -524287, 524288, -524288, 524289, 1L << 40, -(1L << 39), 3, 0, 0};
    long[] ts = new long[dods.length + 2];
    long[] vs = new long[ts.length];
    ts[0] = 1_600_000_000_000L;
    long delta = 1L << 41; // large first delta so every negative dod keeps deltas positive
    ts[1] = ts[0] + delta;
    for (int i = 0; i < dods.length; i++) {
      delta += dods[i];
      ts[i + 2] = ts[i + 1] + delta;
    }
    for (int i = 0; i < vs.length; i++) {
      vs[i] = bits(i * 0.25);
    }
    assertRoundTrip(ts, vs);
  }

  @Test
  void roundTripsOneHundredTwentySamplesAndRefusesCountsTheHeaderCannotHold() {
    long[] ts = new long[XorChunk.MAX_SAMPLES + 1];
    long[] vs = new long[ts.length];
    for (int i = 0; i < ts.length; i++) {
      ts[i] = i * 15_000L + (i % 7) * 13;
      vs[i] = bits(Math.sin(i));
    }
    byte[] chunk = XorChunk.encode(ts, vs, 1, XorChunk.MAX_SAMPLES);
    XorChunk.Samples back = XorChunk.decode(chunk);
    assertThat(back.size()).isEqualTo(120);
    assertThat(back.timestampsMs()[0]).isEqualTo(ts[1]);
    assertThat(back.valueBits()[119]).isEqualTo(vs[120]);
    long[] many = new long[XorChunk.MAX_ENCODABLE_SAMPLES + 1];
    for (int i = 0; i < many.length; i++) {
      many[i] = i;
    }
    assertRoundTrip(java.util.Arrays.copyOf(many, XorChunk.MAX_ENCODABLE_SAMPLES),
        new long[XorChunk.MAX_ENCODABLE_SAMPLES]);
    assertThatThrownBy(() -> XorChunk.encode(many, new long[many.length], 0, many.length))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1 to 65535");
    assertThatThrownBy(() -> XorChunk.encode(ts, vs, 0, 0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void refusesTimestampsThatDoNotAscend() {
    assertThatThrownBy(() -> XorChunk.encode(new long[] {10, 20, 15}, new long[3], 0, 3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("strictly ascending").hasMessageContaining("15 ms");
    assertThatThrownBy(() -> XorChunk.encode(new long[] {10, 10}, new long[2], 0, 2))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void refusesATruncatedChunk() {
    byte[] chunk = XorChunk.encode(new long[] {1, 2, 3}, new long[] {1, 2, 3}, 0, 3);
    byte[] cut = java.util.Arrays.copyOf(chunk, chunk.length - 2);
    assertThatThrownBy(() -> XorChunk.decode(cut)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("ends early");
  }

  /** Random walks, random bit patterns and scrape-like jitter, fixed seed. */
  @Test
  void roundTripsRandomSequences() {
    Random rnd = new Random(20261130L);
    for (int round = 0; round < 500; round++) {
      int n = 1 + rnd.nextInt(XorChunk.MAX_SAMPLES);
      long[] ts = new long[n];
      long[] vs = new long[n];
      long t = rnd.nextLong() >> 20;
      double walk = rnd.nextGaussian() * 100;
      for (int i = 0; i < n; i++) {
        switch (round % 4) {
          case 0 -> t += 15_000 + rnd.nextInt(801) - 400; // scrape jitter
          case 1 -> t += 1 + rnd.nextInt(1 << 22); // irregular
          case 2 -> t += 1 + (rnd.nextLong() >>> 24); // huge gaps
          default -> t += 1_000;
        }
        ts[i] = t;
        switch (rnd.nextInt(5)) {
          case 0 -> vs[i] = rnd.nextLong(); // any bit pattern, NaN payloads included
          case 1 -> vs[i] = STALE;
          case 2 -> vs[i] = i > 0 ? vs[i - 1] : 0;
          default -> vs[i] = bits(walk += rnd.nextGaussian());
        }
      }
      assertRoundTrip(ts, vs);
    }
  }
}
