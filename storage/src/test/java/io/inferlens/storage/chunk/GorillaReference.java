package io.inferlens.storage.chunk;

/**
 * Reference for comparison only: the size of Prometheus' XOR chunk ({@code tsdb/chunkenc/xor.go},
 * after Pelkonen et al., "Gorilla", VLDB 2015) for one block, with the bucket rules that
 * tools/gorilla_cost.py of the benchmark harness uses (docs/BENCHMARKS.md, "The harness"; it
 * matched Prometheus' measured chunk bytes within 2.5 %): first timestamp as a zigzag varint,
 * first delta as a varint, then delta-of-delta
 * in 1/16/20/24/68-bit buckets; first value 64 bits, then XOR with 1 ("same"), 2 + meaningful bits
 * (window reused) or 2 + 5 + 6 + meaningful bits (new window, leading zeros capped at 31). Chunk
 * headers are not counted, as in gorilla_cost.py.
 */
final class GorillaReference {

  private GorillaReference() {}

  /** Bits of the timestamps of one chunk. */
  static long timestampBits(long[] t, int from, int to) {
    long bits = 0;
    long prevT = 0;
    long prevD = 0;
    for (int i = from; i < to; i++) {
      if (i == from) {
        bits += 8L * TimestampEncoding.varintLen(BitWriter.zigzag(t[i]));
      } else if (i == from + 1) {
        prevD = t[i] - prevT;
        bits += 8L * TimestampEncoding.varintLen(prevD);
      } else {
        long d = t[i] - prevT;
        long dod = d - prevD;
        if (dod == 0) {
          bits += 1;
        } else if (-(1L << 13) + 1 <= dod && dod <= (1L << 13)) {
          bits += 2 + 14;
        } else if (-(1L << 16) + 1 <= dod && dod <= (1L << 16)) {
          bits += 3 + 17;
        } else if (-(1L << 19) + 1 <= dod && dod <= (1L << 19)) {
          bits += 4 + 20;
        } else {
          bits += 4 + 64;
        }
        prevD = d;
      }
      prevT = t[i];
    }
    return bits;
  }

  /** Bits of the values of one chunk. */
  static long valueBits(long[] v, int from, int to) {
    long bits = 64;
    int lead = -1;
    int trail = 0;
    for (int i = from + 1; i < to; i++) {
      long x = v[i] ^ v[i - 1];
      if (x == 0) {
        bits += 1;
        continue;
      }
      int nl = Math.min(Long.numberOfLeadingZeros(x), 31);
      int nt = Long.numberOfTrailingZeros(x);
      if (lead >= 0 && nl >= lead && nt >= trail) {
        bits += 2 + (64 - lead - trail);
      } else {
        bits += 2 + 5 + 6 + (64 - nl - nt);
        lead = nl;
        trail = nt;
      }
    }
    return bits;
  }
}
