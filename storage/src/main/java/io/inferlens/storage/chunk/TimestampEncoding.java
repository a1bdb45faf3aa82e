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
 * D)}, so a gap of whole intervals re-locks on the grid and a jitter below {@code D/2} does not
 * move it. On Prometheus data (timestamps within 2 ms of the grid except for late scrapes) most
 * residuals are 0: the bit stream holds the lengths of the runs of zero residuals, Rice-coded
 * ({@link BitWriter#writeRice}), each followed by one non-zero residual as {@code w} bits of its
 * zigzag (all zero bits escape to 64 bits). The encoder picks {@code D} (the most frequent or the
 * median neighbour difference), {@code g0}, {@code w} and the Rice parameter by exact bit counts.
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

  /** Largest Rice parameter for zero runs: 2^12 > typical runs of a chunk of MAX_SAMPLES. */
  private static final int MAX_RUN_K = 12;

  private long[] residuals = new long[0];
  private long[] sortScratch = new long[0];

  // plan
  int kind;
  long g0;
  long intervalMs;
  int width;
  int runK;
  long bits;

  /** Chooses the kind and its parameters; {@link #bits} is the bit-stream cost of the plan. */
  void plan(long[] t, int n) {
    if (residuals.length < n) {
      residuals = new long[n];
      sortScratch = new long[n];
      runScratch = new int[n + 1];
    }
    kind = RAW;
    bits = 64L * n;
    // Interval candidates: the most frequent positive delta (exact on Prometheus data, where most
    // scrapes are on the grid) and the median one (when jitter makes every delta distinct).
    long mode;
    long median;
    try {
      int m = positiveDeltas(t, n);
      int maj = m > 0 ? majorityIndex(sortScratch, 0, m) : -1;
      if (maj >= 0) {
        // Mostly regular scrapes: a value held by more than half the deltas is both the mode and
        // the median the sort below would give; skip the sort.
        mode = sortScratch[maj];
        median = mode;
      } else {
        mode = m == 0 ? 1 : modeSorted(sortScratch, m);
        median = m == 0 ? 1 : sortScratch[m / 2];
      }
    } catch (ArithmeticException overflow) {
      return;
    }
    long bestD = 0;
    long bestG0 = 0;
    for (long d : new long[] {mode, median}) {
      if (d == bestD) {
        continue;
      }
      long c = gridBits(t, n, d);
      if (c < bits) {
        kind = GRID;
        bits = c;
        bestD = d;
        bestG0 = g0;
        width = candWidth;
        runK = candRunK;
      }
    }
    if (kind == GRID) {
      intervalMs = bestD;
      g0 = bestG0;
      computeResiduals(t, n); // no overflow: it succeeded with these parameters
    }
  }

  private int candWidth;
  private int candRunK;
  private final long[] cntByLen = new long[65];
  private final int[] lenScratch = new int[64];
  private int[] runScratch = new int[0];

  /**
   * Bits of the grid kind with interval {@code d}, header included; sets {@link #g0}, the
   * candidate width and run parameter; {@link Long#MAX_VALUE} if the arithmetic would overflow.
   */
  private long gridBits(long[] t, int n, long d) {
    intervalMs = d;
    try {
      // Pass 1 with g0 = t0 finds the offset of t0 from the grid the other samples lie on.
      g0 = t[0];
      computeResiduals(t, n);
      long mode = n > 1 ? mode(residuals, 1, n) : 0;
      g0 = Math.addExact(t[0], mode);
      computeResiduals(t, n);
    } catch (ArithmeticException overflow) {
      return Long.MAX_VALUE;
    }
    // Non-zero residuals: w bits of zigzag(r) in 1..2^w-1, or w zero bits + 64 bits (escape).
    long[] cntByLen = this.cntByLen;
    Arrays.fill(cntByLen, 0);
    // One pass: the zero runs (each ended by a non-zero residual or the end) and the lengths.
    int runs = 0;
    int run = 0;
    for (int i = 0; i < n; i++) {
      long r = residuals[i];
      if (r == 0) {
        run++;
      } else {
        cntByLen[64 - Long.numberOfLeadingZeros(BitWriter.zigzag(r))]++;
        runScratch[runs++] = run;
        run = 0;
      }
    }
    if (run > 0) {
      runScratch[runs++] = run;
    }
    int distinct = 0;
    for (int len = 1; len <= 64; len++) {
      if (cntByLen[len] != 0) {
        lenScratch[distinct++] = len;
      }
    }
    long bestRes = Long.MAX_VALUE;
    int bestW = 0;
    for (int w = 0; w <= 63; w++) {
      long c = 0;
      for (int j = 0; j < distinct; j++) {
        int len = lenScratch[j];
        c += cntByLen[len] * (len <= w ? w : w + 64);
      }
      if (c < bestRes) {
        bestRes = c;
        bestW = w;
      }
    }
    // Runs of zero residuals, Rice-coded with the best parameter.
    long bestRuns = Long.MAX_VALUE;
    int bestK = 0;
    for (int k = 0; k <= MAX_RUN_K; k++) {
      long c = 0;
      for (int j = 0; j < runs; j++) {
        c += BitWriter.riceBits(runScratch[j], k);
      }
      if (c < bestRuns) {
        bestRuns = c;
        bestK = k;
      }
    }
    candWidth = bestW;
    candRunK = bestK;
    // header: g0 and D as varints and 2 bytes w, k, counted at their real size
    return bestRes + bestRuns + 8L * (varintLen(BitWriter.zigzag(g0)) + varintLen(d) + 2);
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
      w.writeByte(runK);
    }
  }

  void writeBits(BitWriter w, long[] t, int n) {
    if (kind == RAW) {
      for (int i = 0; i < n; i++) {
        w.writeBits(t[i], 64);
      }
      return;
    }
    int run = 0;
    for (int i = 0; i < n; i++) {
      long r = residuals[i];
      if (r == 0) {
        run++;
        continue;
      }
      w.writeRice(run, runK);
      run = 0;
      long z = BitWriter.zigzag(r);
      if (width < 64 && z >>> width == 0) {
        w.writeBits(z, width);
      } else {
        w.writeBits(0, width);
        w.writeBits(z, 64);
      }
    }
    if (run > 0) {
      w.writeRice(run, runK);
    }
  }

  /** Decoder state read from the header. */
  static final class Header {
    long g0;
    long intervalMs;
    int width;
    int runK;
  }

  static void readHeader(int kind, BitReader r, Header h) {
    if (kind == GRID) {
      h.g0 = r.readSignedVarint();
      h.intervalMs = r.readVarint();
      h.width = r.readByte();
      h.runK = r.readByte();
      if (h.intervalMs <= 0 || h.width > 63 || h.runK > MAX_RUN_K) {
        throw BitReader.corrupt(
            "grid interval " + h.intervalMs + ", width " + h.width + ", run k " + h.runK);
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
    int i = 0;
    while (i < n) {
      long run = r.readRice(h.runK);
      if (run > n - i) {
        throw BitReader.corrupt("run of " + run + " on-grid samples past sample " + i + " of " + n);
      }
      for (long j = 0; j < run; j++, i++) {
        g = i == 0 ? h.g0 : g + d;
        out[i] = g;
      }
      if (i == n) {
        break;
      }
      long z = r.readBits(h.width);
      if (z == 0) {
        z = r.readBits(64);
      }
      long res = BitReader.unzigzag(z);
      long e = i == 0 ? h.g0 : g + d;
      out[i] = e + res;
      g = e + d * Math.floorDiv(res + half, d);
      i++;
    }
  }

  /** Puts the positive differences between neighbours into sortScratch; returns how many. */
  private int positiveDeltas(long[] t, int n) {
    int m = 0;
    for (int i = 1; i < n; i++) {
      long d = Math.subtractExact(t[i], t[i - 1]);
      if (d > 0) {
        sortScratch[m++] = d;
      }
    }
    return m;
  }

  private long mode(long[] a, int from, int to) {
    int maj = majorityIndex(a, from, to);
    if (maj >= 0) {
      return a[maj];
    }
    int m = to - from;
    System.arraycopy(a, from, sortScratch, 0, m);
    return modeSorted(sortScratch, m);
  }

  /**
   * The index of a value that fills more than half of {@code a[from..to)} (its mode and its
   * median, so no sort is needed), or -1 if there is none; {@code from < to}. Boyer-Moore
   * majority vote (R. S. Boyer, J S. Moore, "MJRTY — A Fast Majority Vote Algorithm", 1991)
   * and a counting pass: O(n), no reordering. On Prometheus data most scrape deltas, and most
   * residuals from the grid, are one value.
   */
  static int majorityIndex(long[] a, int from, int to) {
    int cand = from;
    int votes = 0;
    for (int i = from; i < to; i++) {
      if (votes == 0) {
        cand = i;
        votes = 1;
      } else if (a[i] == a[cand]) {
        votes++;
      } else {
        votes--;
      }
    }
    long v = a[cand];
    int count = 0;
    for (int i = from; i < to; i++) {
      if (a[i] == v) {
        count++;
      }
    }
    return 2L * count > to - from ? cand : -1;
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
