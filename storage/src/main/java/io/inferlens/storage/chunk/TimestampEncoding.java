package io.inferlens.storage.chunk;

import java.util.Arrays;

/**
 * Timestamp part of a chunk: residuals against a scrape grid, or raw 64-bit values.
 *
 * <p><b>GRID</b> (kind 1). The idea is Gorilla's delta-of-delta (Pelkonen et al., "Gorilla: A
 * Fast, Scalable, In-Memory Time Series Database", VLDB 2015, section 4.1.1), changed so that one
 * jittered scrape costs one exception instead of two: each timestamp is coded as its residual
 * against a grid point that advances by the block's dominant interval {@code D} ms, and the grid is
 * not moved by jitter. With {@code g0} from the header: expected {@code e0 = g0}, {@code e(i) =
 * g(i-1) + D}; residual {@code r(i) = t(i) - e(i)}; {@code g(i) = e(i) + D * floorDiv(r(i) + D/2,
 * D)}, so a gap of whole intervals re-locks on the grid and a jitter below {@code D/2} does not move
 * it. On Prometheus data (timestamps within 2 ms of the grid except for late scrapes) most
 * residuals are 0 and cost 1 bit.
 *
 * <p><b>RAW</b> (kind 0): 64 bits per timestamp; chosen only when it is smaller or when the grid
 * arithmetic would overflow a {@code long} (timestamps near {@link Long#MIN_VALUE}/{@link
 * Long#MAX_VALUE}).
 *
 * <p>Instances hold reusable scratch space; not thread safe.
 */
final class TimestampEncoding {

  static final int RAW = 0;
  static final int GRID = 1;

  /** Escape residual code: 2 flag bits + 64 bits of the zigzagged residual. */
  private static final int ESCAPE_BITS = 66;

  private long[] residuals = new long[0];
  private long[] sortScratch = new long[0];

  // plan
  int kind;
  long g0;
  long intervalMs;
  int width;
  long bits;

  /** Chooses the kind and its parameters; {@link #bits} is the bit-stream cost of the plan. */
  void plan(long[] t, int n) {
    if (residuals.length < n) {
      residuals = new long[n];
      sortScratch = new long[n];
    }
    long raw = 64L * n;
    kind = RAW;
    bits = raw;
    try {
      intervalMs = dominantInterval(t, n);
      // Pass 1 with g0 = t0 finds the offset of t0 from the grid the other samples lie on.
      g0 = t[0];
      computeResiduals(t, n);
      long mode = n > 1 ? mode(residuals, 1, n) : 0;
      g0 = Math.addExact(t[0], mode);
      computeResiduals(t, n);
    } catch (ArithmeticException overflow) {
      return;
    }
    long[] cntByLen = new long[65];
    long zeros = 0;
    for (int i = 0; i < n; i++) {
      long r = residuals[i];
      if (r == 0) {
        zeros++;
      } else {
        cntByLen[64 - Long.numberOfLeadingZeros(BitWriter.zigzag(r))]++;
      }
    }
    long best = Long.MAX_VALUE;
    int bestW = 0;
    for (int w = 0; w <= 63; w++) {
      long c = zeros;
      for (int len = 1; len <= 64; len++) {
        c += cntByLen[len] * (len <= w ? 2 + w : ESCAPE_BITS);
      }
      if (c < best) {
        best = c;
        bestW = w;
      }
    }
    // header: g0 and D as varints (<= 20 bytes) and w (1 byte), counted at their real size
    long gridBits = best + 8L * (varintLen(BitWriter.zigzag(g0)) + varintLen(intervalMs) + 1);
    if (gridBits < raw) {
      kind = GRID;
      width = bestW;
      bits = gridBits;
    }
  }

  private void computeResiduals(long[] t, int n) {
    long d = intervalMs;
    long g = g0;
    for (int i = 0; i < n; i++) {
      long e = i == 0 ? g0 : Math.addExact(g, d);
      long r = Math.subtractExact(t[i], e);
      residuals[i] = r;
      g = Math.addExact(e, Math.multiplyExact(d, Math.floorDiv(Math.addExact(r, d / 2), d)));
    }
  }

  void writeHeader(BitWriter w) {
    if (kind == GRID) {
      w.writeSignedVarint(g0);
      w.writeVarint(intervalMs);
      w.writeByte(width);
    }
  }

  void writeBits(BitWriter w, long[] t, int n) {
    if (kind == RAW) {
      for (int i = 0; i < n; i++) {
        w.writeBits(t[i], 64);
      }
      return;
    }
    long limit = width == 0 ? 0 : 1L << width;
    for (int i = 0; i < n; i++) {
      long r = residuals[i];
      if (r == 0) {
        w.writeBit(false);
        continue;
      }
      long z = BitWriter.zigzag(r);
      if (Long.compareUnsigned(z, limit) < 0) {
        w.writeBits(0b10, 2);
        w.writeBits(z, width);
      } else {
        w.writeBits(0b11, 2);
        w.writeBits(z, 64);
      }
    }
  }

  /** Decoder state read from the header. */
  static final class Header {
    long g0;
    long intervalMs;
    int width;
  }

  static void readHeader(int kind, BitReader r, Header h) {
    if (kind == GRID) {
      h.g0 = r.readSignedVarint();
      h.intervalMs = r.readVarint();
      h.width = r.readByte();
      if (h.intervalMs <= 0 || h.width > 63) {
        throw BitReader.corrupt("grid interval " + h.intervalMs + " or width " + h.width);
      }
    } else if (kind != RAW) {
      throw BitReader.corrupt("timestamp kind " + kind);
    }
  }

  static void readBits(int kind, Header h, BitReader r, long[] out, int n) {
    if (kind == RAW) {
      for (int i = 0; i < n; i++) {
        out[i] = r.readBits(64);
      }
      return;
    }
    long d = h.intervalMs;
    long half = d / 2;
    long g = h.g0;
    for (int i = 0; i < n; i++) {
      long e = i == 0 ? h.g0 : g + d;
      long res;
      if (!r.readBit()) {
        res = 0;
      } else if (!r.readBit()) {
        res = BitReader.unzigzag(r.readBits(h.width));
      } else {
        res = BitReader.unzigzag(r.readBits(64));
      }
      out[i] = e + res;
      g = res == 0 ? e : e + d * Math.floorDiv(res + half, d);
    }
  }

  /** The most frequent positive difference between neighbours, in ms; 1 if there is none. */
  private long dominantInterval(long[] t, int n) {
    int m = 0;
    for (int i = 1; i < n; i++) {
      long d = Math.subtractExact(t[i], t[i - 1]);
      if (d > 0) {
        sortScratch[m++] = d;
      }
    }
    if (m == 0) {
      return 1;
    }
    return modeSorted(sortScratch, m);
  }

  private long mode(long[] a, int from, int to) {
    int m = to - from;
    System.arraycopy(a, from, sortScratch, 0, m);
    return modeSorted(sortScratch, m);
  }

  /** Sorts {@code a[0..m)} and returns its most frequent value (the smallest on ties). */
  private static long modeSorted(long[] a, int m) {
    Arrays.sort(a, 0, m);
    long best = a[0];
    int bestRun = 0;
    int run = 0;
    for (int i = 0; i < m; i++) {
      run = i > 0 && a[i] == a[i - 1] ? run + 1 : 1;
      if (run > bestRun) {
        bestRun = run;
        best = a[i];
      }
    }
    return best;
  }

  static int varintLen(long v) {
    int len = 1;
    while ((v & ~0x7FL) != 0) {
      v >>>= 7;
      len++;
    }
    return len;
  }
}
