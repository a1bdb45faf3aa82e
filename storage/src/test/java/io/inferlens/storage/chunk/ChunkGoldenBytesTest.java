package io.inferlens.storage.chunk;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * Freezes chunk format v1 (storage/FORMAT.md, "Chunk format v1"): one chunk per timestamp and
 * value kind. A failure here means the bytes on disk would change: bump {@link
 * ChunkCodec#FORMAT_VERSION}, keep a decoder for version 1, and update FORMAT.md.
 */
class ChunkGoldenBytesTest {

  private static final long T0 = 1_796_000_000_000L;
  private static final long STALE = 0x7ff0000000000002L;

  private static long b(double d) {
    return Double.doubleToRawLongBits(d);
  }

  private static void assertGolden(long[] t, long[] v, int valueKind, String hex) {
    byte[] chunk = new ChunkCodec().encode(t, v, t.length);
    assertThat(HexFormat.of().formatHex(chunk)).isEqualTo(hex);
    assertThat(chunk[0] & 7).as("value kind").isEqualTo(valueKind);
    long[] t2 = new long[t.length];
    long[] v2 = new long[t.length];
    ChunkCodec.decode(HexFormat.of().parseHex(hex), t2, v2);
    assertThat(t2).isEqualTo(t);
    assertThat(v2).isEqualTo(v);
  }

  @Test
  void gridTimestampsWithAJitteredScrapeAndAConstantValue() {
    assertGolden(new long[] {T0, T0 + 15_000, T0 + 30_007, T0 + 45_000}, new long[] {0, 0, 0, 0},
        ChunkCodec.VALUES_CONST, "180480a0899fc568987504000000000000000000dd00");
  }

  @Test
  void decimalCounterWithAStaleMarkerException() {
    assertGolden(new long[] {T0, T0 + 15_000, T0 + 30_000, T0 + 45_000, T0 + 59_997},
        new long[] {b(1), b(2), b(4), STALE, b(7)},
        ChunkCodec.VALUES_DECIMAL,
        "190580a0899fc568987503010001020401037ff0000000000002cb3b00");
  }

  @Test
  void decimalWithThreeDecimals() {
    assertGolden(new long[] {T0, T0 + 15_000, T0 + 30_000},
        new long[] {b(140.912), b(168.114), b(220.796)},
        ChunkCodec.VALUES_DECIMAL, "190380a0899fc568987500010302e0991184a903908e0300a0");
  }

  @Test
  void rawTimestampsAndXorValues() {
    assertGolden(new long[] {Long.MIN_VALUE, Long.MAX_VALUE, 0},
        new long[] {b(0.2713082437275986), b(-0.0), 0xfff8000000000001L},
        ChunkCodec.VALUES_XOR,
        "120380000000000000007fffffffffffffff00000000000000003fd15d1d407c7eb3c5fe8ae8ea03e3f59cf"
            + "ff0000000000002");
  }

  @Test
  void fullMantissaSumAsRawIntegers() {
    // a histogram _sum: one binade, increments with full mantissas
    long[] t = new long[12];
    long[] v = new long[12];
    for (int i = 0; i < 12; i++) {
      t[i] = T0 + 15_000L * i;
      v[i] = b(1000.0 + 25.316 * i + Math.sqrt(i));
    }
    assertGolden(t, v, ChunkCodec.VALUES_RAW_INTEGERS,
        "1b0c80a0899fc56898750003aa808080808080a08f8101ca9888d8f2d064d7ce8aa7b204a7fffdf12322fa"
            + "86424511e07d5de84306d2715703c4c1b291602cf101fdb40000000000007520989c6018cf7ef7b004"
            + "06e1003c009738078080");
  }
}
