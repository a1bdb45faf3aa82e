package io.inferlens.storage.chunk;

/**
 * Value kind 2, the fallback for values that are not short decimals: each value XORed with the
 * previous one, the XOR coded after Chimp (Liakos, Papakonstantinopoulou, Kotidis, "Chimp:
 * Efficient Lossless Floating Point Compression for Time Series Databases", VLDB 2022), a
 * refinement of Gorilla's XOR scheme (Pelkonen et al., VLDB 2015, section 4.1.2) that spends fewer
 * bits on full-mantissa doubles. Works on raw bits, so every NaN payload, -0.0 and infinity
 * survives.
 *
 * <pre>
 * first value: 64 bits
 * x = bits(v[i]) XOR bits(v[i-1]); lead = leading zeros of x rounded down to
 *     {0, 8, 12, 16, 18, 20, 22, 24} (3-bit code = index), trail = trailing zeros of x
 * x == 0                 : 00
 * trail > 6              : 01 code(3) len(6) x &gt;&gt;&gt; trail (len = 64 - lead - trail bits)
 * lead == previous lead  : 10 x (64 - lead bits)
 * otherwise              : 11 code(3) x (64 - lead bits)        -- sets previous lead
 * </pre>
 *
 * "previous lead" is reset to none by the 00 and 01 cases, as in Chimp.
 */
final class XorEncoding {

  private static final int[] LEAD_ROUND = {0, 8, 12, 16, 18, 20, 22, 24};
  private static final int NO_LEAD = 65;

  /** 0..64 leading zeros to the 3-bit code of the largest representable value below it. */
  private static final int[] LEAD_CODE = new int[65];

  static {
    for (int z = 0; z <= 64; z++) {
      int code = 0;
      for (int c = 0; c < LEAD_ROUND.length; c++) {
        if (LEAD_ROUND[c] <= z) {
          code = c;
        }
      }
      LEAD_CODE[z] = code;
    }
  }

  private XorEncoding() {}

  /**
   * Writes the values to {@code w}, or only counts their bits when {@code w} is null.
   *
   * @return bits written
   */
  static long encode(long[] vb, int n, BitWriter w) {
    long bits = 64;
    if (w != null) {
      w.writeBits(vb[0], 64);
    }
    int prevLead = NO_LEAD;
    for (int i = 1; i < n; i++) {
      long x = vb[i] ^ vb[i - 1];
      if (x == 0) {
        bits += 2;
        if (w != null) {
          w.writeBits(0b00, 2);
        }
        prevLead = NO_LEAD;
        continue;
      }
      int code = LEAD_CODE[Long.numberOfLeadingZeros(x)];
      int lead = LEAD_ROUND[code];
      int trail = Long.numberOfTrailingZeros(x);
      if (trail > 6) { // Chimp's threshold: 6 bits of length pay off above 6 trailing zeros
        int len = 64 - lead - trail;
        bits += 2 + 3 + 6 + len;
        if (w != null) {
          w.writeBits((0b01 << 9) | (code << 6) | len, 11);
          w.writeBits(x >>> trail, len);
        }
        prevLead = NO_LEAD;
      } else if (lead == prevLead) {
        bits += 2 + 64 - lead;
        if (w != null) {
          w.writeBits(0b10, 2);
          w.writeBits(x, 64 - lead);
        }
      } else {
        bits += 2 + 3 + 64 - lead;
        if (w != null) {
          w.writeBits((0b11 << 3) | code, 5);
          w.writeBits(x, 64 - lead);
        }
        prevLead = lead;
      }
    }
    return bits;
  }

  static void decode(BitReader r, long[] out, int n) {
    long prev = r.readBits(64);
    out[0] = prev;
    int prevLead = NO_LEAD;
    for (int i = 1; i < n; i++) {
      int flag = (int) r.readBits(2);
      long x;
      switch (flag) {
        case 0b00:
          x = 0;
          prevLead = NO_LEAD;
          break;
        case 0b01: {
          int lead = LEAD_ROUND[(int) r.readBits(3)];
          int len = (int) r.readBits(6);
          int trail = 64 - lead - len;
          if (len == 0 || trail < 7) {
            throw BitReader.corrupt("XOR window lead " + lead + " len " + len);
          }
          x = r.readBits(len) << trail;
          prevLead = NO_LEAD;
          break;
        }
        case 0b10:
          if (prevLead == NO_LEAD) {
            throw BitReader.corrupt("XOR reuses a leading-zero count that was never set");
          }
          x = r.readBits(64 - prevLead);
          break;
        default:
          prevLead = LEAD_ROUND[(int) r.readBits(3)];
          x = r.readBits(64 - prevLead);
          break;
      }
      prev ^= x;
      out[i] = prev;
    }
  }
}
