package io.inferlens.storage.chunk;

import java.util.Arrays;

/**
 * Value kind 1: values that are short decimals, stored as integer mantissas {@code m(i)} with one
 * shared decimal scale {@code S}, so that {@code v(i) = m(i) / 10^S} ({@code S >= 0}) or {@code
 * m(i) * 10^-S} ({@code S < 0}). The idea (floats as decimal mantissa and exponent, then integer
 * deltas) is VictoriaMetrics' {@code lib/decimal} and {@code lib/encoding}; unlike
 * VictoriaMetrics this is lossless: every value is checked to come back bit for bit, and the ones
 * that do not (NaN with any payload, the Prometheus stale marker, infinities, -0.0, more than 15-17
 * significant digits) are stored raw as exceptions.
 *
 * <p>Why decoding is exact: with {@code |m| <= 2^53} and {@code |S| <= 22} both {@code (double) m}
 * and {@code 10^|S|} are exact doubles, and one IEEE-754 division or multiplication is correctly
 * rounded, so it yields the double nearest to the real {@code m * 10^-S}, the same double that
 * {@code Double.parseDouble(m + "e" + -S)} gives. The encoder still compares the bits of every
 * value.
 *
 * <p>The mantissas are then differenced {@code order} times (0: none, 1: deltas for gauges and
 * counters, 2: delta-of-delta for steady counters), the median difference ("bias") subtracted,
 * zigzagged and Rice-coded (Golomb-Rice with parameter {@code k}: {@code q = z >>> k} as {@code q}
 * one-bits and a zero-bit, then the low {@code k} bits; see {@link BitWriter#writeRice}). The
 * encoder tries every order and the likely {@code k} and keeps the cheapest.
 *
 * <p>Instances hold reusable scratch space; not thread safe.
 */
final class DecimalEncoding {

  /** {@code |m| <= 2^53}: every such long is an exact double. */
  static final long MAX_EXACT = 1L << 53;

  /** 10^22 is the largest power of ten that is an exact double. */
  static final int MAX_SCALE = 22;

  static final double[] POW10 = new double[MAX_SCALE + 1];
  private static final long[] LONG_POW10 = new long[19];

  static {
    double p = 1;
    for (int i = 0; i <= MAX_SCALE; i++) {
      POW10[i] = p; // 10^i exactly for i <= 22
      p *= 10;
    }
    long q = 1;
    for (int i = 0; i < LONG_POW10.length; i++) {
      LONG_POW10[i] = q;
      q *= 10;
    }
  }

  /** Value kind 3 instead of 1: the raw bits as the integers, no scale, no exceptions. */
  private final boolean rawBits;

  private long[] mant = new long[0];
  private int[] scale = new int[0];
  private boolean[] isExc = new boolean[0];
  private long[] res = new long[0];
  private long[] sortScratch = new long[0];

  /**
   * @param rawBits false for value kind 1 (decimal mantissas), true for kind 3 (the raw IEEE-754
   *     bits taken as signed integers: for doubles of one sign, integer order is value order and
   *     the difference counts ulps, so slowly moving full-mantissa values such as a histogram's
   *     {@code _sum} or a utilisation ratio cost about log2 of their change in ulps)
   */
  DecimalEncoding(boolean rawBits) {
    this.rawBits = rawBits;
  }

  // plan
  int blockScale;
  int order;
  int k;
  long bias;
  long first;
  long firstDelta;
  int exceptions;
  /** Bits of header and stream of the plan, or -1 if no plan. */
  long bits;

  /**
   * Finds the cheapest decimal plan; {@link #bits} is -1 when more than half of the values are not
   * short decimals (the XOR kind will be smaller then).
   */
  void plan(long[] vb, int n) {
    if (mant.length < n) {
      mant = new long[n];
      scale = new int[n];
      isExc = new boolean[n];
      res = new long[n];
      sortScratch = new long[n];
    }
    bits = -1;
    if (rawBits) {
      System.arraycopy(vb, 0, mant, 0, n);
      Arrays.fill(isExc, 0, n, false);
      exceptions = 0;
      blockScale = 0;
      chooseOrder(n);
      return;
    }
    int exc = 0;
    int minS = Integer.MAX_VALUE;
    int maxS = Integer.MIN_VALUE;
    for (int i = 0; i < n; i++) {
      boolean ok;
      if (i > 0 && vb[i] == vb[i - 1]) { // repeats are common (idle gauges, flat counters)
        ok = !isExc[i - 1];
        mant[i] = mant[i - 1];
        scale[i] = scale[i - 1];
      } else {
        ok = decimalOf(vb[i], i);
      }
      isExc[i] = !ok;
      if (!ok) {
        if (++exc > n / 2) {
          return;
        }
      } else {
        minS = Math.min(minS, scale[i]);
        maxS = Math.max(maxS, scale[i]);
      }
    }
    if (exc == n) {
      return;
    }
    blockScale = minS == maxS ? maxS : chooseScale(n, minS, maxS);
    exc = 0;
    for (int i = 0; i < n; i++) {
      if (!isExc[i] && !(rescale(i, blockScale) && bitsOf(mant[i], blockScale) == vb[i])) {
        isExc[i] = true;
      }
      if (isExc[i] && ++exc > n / 2) {
        return;
      }
    }
    exceptions = exc;
    stripTrailingZeros(n);
    fillExceptions(n);
    chooseOrder(n);
  }

  private void chooseOrder(int n) {
    long best = Long.MAX_VALUE;
    for (int o = 0; o <= Math.min(2, n - 1); o++) {
      long c = costOfOrder(o, n);
      if (c < best) {
        best = c;
        order = o;
        k = bestK;
        bias = bestBias;
      }
    }
    first = mant[0];
    firstDelta = n > 1 ? mant[1] - mant[0] : 0;
    long header = rawBits ? 8 : 8 + 8; // scale byte (decimal only), order/k byte
    header += 8L * varintLenZ(bias);
    if (order >= 1) {
      header += 8L * varintLenZ(first);
    }
    if (order == 2) {
      header += 8L * varintLenZ(firstDelta);
    }
    if (!rawBits) {
      header += 8L * TimestampEncoding.varintLen(exceptions);
    }
    int prev = -1;
    for (int i = 0; i < n; i++) {
      if (isExc[i]) {
        header += 8L * (TimestampEncoding.varintLen(i - prev - 1) + 8);
        prev = i;
      }
    }
    bits = header + best;
  }

  private long bestBias;
  private int bestK;

  /**
   * The {@code k}-th smallest of {@code a[0..m)} (0-based), i.e. what {@code a[k]} would be after
   * sorting, found by quickselect (Hoare, median-of-three pivot) in expected O(m) instead of a
   * sort's O(m log m); reorders {@code a}. Falls back to sorting after many rounds, so adversarial
   * orders cannot make it quadratic.
   */
  static long kthSmallest(long[] a, int m, int k) {
    int lo = 0;
    int hi = m - 1;
    int rounds = 0;
    while (lo < hi) {
      if (++rounds > 64) {
        Arrays.sort(a, lo, hi + 1);
        return a[k];
      }
      int mid = (lo + hi) >>> 1;
      long x = a[lo];
      long y = a[mid];
      long z = a[hi];
      long pivot = Math.max(Math.min(x, y), Math.min(Math.max(x, y), z));
      int i = lo;
      int j = hi;
      while (i <= j) {
        while (a[i] < pivot) {
          i++;
        }
        while (a[j] > pivot) {
          j--;
        }
        if (i <= j) {
          long t = a[i];
          a[i] = a[j];
          a[j] = t;
          i++;
          j--;
        }
      }
      if (k <= j) {
        hi = j;
      } else if (k >= i) {
        lo = i;
      } else {
        return a[k];
      }
    }
    return a[k];
  }

  /** Residuals of one order, their median as bias, the best Rice parameter; returns stream bits. */
  private long costOfOrder(int o, int n) {
    int m = 0;
    boolean ascending = true;
    long prevD = Long.MIN_VALUE;
    for (int i = o; i < n; i++) {
      long d;
      if (o == 0) {
        d = mant[i];
      } else if (o == 1) {
        d = mant[i] - mant[i - 1];
      } else {
        d = (mant[i] - mant[i - 1]) - (mant[i - 1] - mant[i - 2]);
      }
      ascending &= d >= prevD;
      prevD = d;
      res[m++] = d;
    }
    if (m == 0) {
      bestBias = 0;
      bestK = 0;
      return 0;
    }
    // Ascending residuals (a counter's mantissas, a constant rate) are their own sorted order.
    long b;
    if (ascending) {
      b = res[m / 2];
    } else {
      System.arraycopy(res, 0, sortScratch, 0, m);
      b = kthSmallest(sortScratch, m, m / 2);
    }
    double mean = 0;
    long[] lenCount = this.lenCount;
    long[] lowQuotients = this.lowQuotients;
    Arrays.fill(lenCount, 0);
    Arrays.fill(lowQuotients, 0);
    for (int i = 0; i < m; i++) {
      // Decimal mantissas are <= 2^53, so no difference overflows; raw bits wrap modulo 2^64,
      // as the decoder's sums do, so the round trip holds either way.
      long z = BitWriter.zigzag(res[i] - b);
      res[i] = z;
      mean += 2.0 * (z >>> 1); // unsigned
      int len = 64 - Long.numberOfLeadingZeros(z);
      lenCount[len]++;
      // z's quotient z >>> k is 1..RICE_ESCAPE-1 (coded in unary) exactly for k in
      // [len - UNARY_BITS, len - 1].
      for (int kk = Math.max(0, len - UNARY_BITS); kk < len; kk++) {
        lowQuotients[kk] += z >>> kk;
      }
    }
    mean /= m;
    prefixSums();
    // The best k is near log2(mean); 0..2 as well for mostly-zero residuals with a few outliers
    // (a clock at 1980 MHz that sometimes drops), where the mean overstates the typical value.
    int k0 = mean < 1 ? 0 : 63 - Long.numberOfLeadingZeros((long) mean);
    long best = Long.MAX_VALUE;
    for (int kk = 0; kk <= Math.min(62, k0 + 2); kk = kk == 2 ? Math.max(3, k0 - 2) : kk + 1) {
      long c = riceStreamBits(kk);
      if (c < best) {
        best = c;
        bestK = kk;
      }
    }
    bestBias = b;
    return best;
  }

  /** Bit length of the largest quotient coded in unary ({@code RICE_ESCAPE} = 2^UNARY_BITS). */
  private static final int UNARY_BITS = Integer.numberOfTrailingZeros(BitWriter.RICE_ESCAPE);

  /** Residuals by bit length 0..64, filled by {@link #costOfOrder}. */
  private final long[] lenCount = new long[65];
  /** {@code unaryCount[L]}: residuals of bit length at most L, L in 0..64. */
  private final long[] unaryCount = new long[65];
  /** {@code escapedBits[L]}: escaped cost of the residuals of bit length L or more; [65] = 0. */
  private final long[] escapedBits = new long[66];
  /** Per k: the sum of {@code z >>> k} over the residuals whose unary quotient is 1..15. */
  private final long[] lowQuotients = new long[64];

  /**
   * The exact sum of {@link BitWriter#riceBits}{@code (z, k)} over the residuals that
   * {@link #costOfOrder} counted, in O(1) from the prefix sums of its histograms instead of a
   * pass over the residuals per candidate {@code k}. With {@code L} the bit length of {@code z} and {@code U =
   * UNARY_BITS} (4): {@code L <= k} costs {@code 1 + k} (quotient 0), {@code k < L <= k + U}
   * costs {@code (z >>> k) + 1 + k} (quotient 1..15), and {@code L > k + U} is escaped at
   * {@code RICE_ESCAPE + 5 + L} bits.
   */
  private long riceStreamBits(int k) {
    int unaryMax = Math.min(64, k + UNARY_BITS); // longest residual coded with a unary quotient
    return unaryCount[unaryMax] * (1 + k) + lowQuotients[k] + escapedBits[unaryMax + 1];
  }

  /** Fills {@link #unaryCount} and {@link #escapedBits} from {@link #lenCount}, O(64). */
  private void prefixSums() {
    long c = 0;
    for (int len = 0; len <= 64; len++) {
      c += lenCount[len];
      unaryCount[len] = c;
    }
    long e = 0; // escapedBits[65] stays 0: no residual is longer than 64 bits
    for (int len = 64; len >= 0; len--) {
      e += lenCount[len] * (BitWriter.RICE_ESCAPE + 5 + len);
      escapedBits[len] = e;
    }
  }

  void writeHeader(BitWriter w, long[] vb, int n) {
    if (!rawBits) {
      w.writeByte(blockScale & 0xFF);
    }
    w.writeByte((k << 2) | order);
    if (order >= 1) {
      w.writeSignedVarint(first);
    }
    if (order == 2) {
      w.writeSignedVarint(firstDelta);
    }
    w.writeSignedVarint(bias);
    if (rawBits) {
      return;
    }
    w.writeVarint(exceptions);
    int prev = -1;
    for (int i = 0; i < n; i++) {
      if (isExc[i]) {
        w.writeVarint(i - prev - 1);
        w.writeLong(vb[i]);
        prev = i;
      }
    }
  }

  void writeBits(BitWriter w, int n) {
    for (int i = order; i < n; i++) {
      long d;
      if (order == 0) {
        d = mant[i];
      } else if (order == 1) {
        d = mant[i] - mant[i - 1];
      } else {
        d = (mant[i] - mant[i - 1]) - (mant[i - 1] - mant[i - 2]);
      }
      w.writeRice(BitWriter.zigzag(d - bias), k);
    }
  }

  /** Decoder state read from the header. */
  static final class Header {
    int scale;
    int order;
    int k;
    long first;
    long firstDelta;
    long bias;
    int[] excPos;
    long[] excBits;
    boolean rawBits;
  }

  static Header readHeader(BitReader r, int n, boolean rawBits) {
    Header h = new Header();
    h.rawBits = rawBits;
    h.scale = rawBits ? 0 : (byte) r.readByte();
    int ok = r.readByte();
    h.order = ok & 3;
    h.k = ok >>> 2;
    if (h.scale < -MAX_SCALE || h.scale > MAX_SCALE || h.order > 2 || h.order > n - 1 || h.k > 62) {
      throw BitReader.corrupt("decimal scale " + h.scale + " order " + h.order);
    }
    h.first = h.order >= 1 ? r.readSignedVarint() : 0;
    h.firstDelta = h.order == 2 ? r.readSignedVarint() : 0;
    h.bias = r.readSignedVarint();
    long nexc = rawBits ? 0 : r.readVarint();
    if (nexc > n) {
      throw BitReader.corrupt(nexc + " exceptions in " + n + " samples");
    }
    h.excPos = new int[(int) nexc];
    h.excBits = new long[(int) nexc];
    long pos = -1;
    for (int e = 0; e < nexc; e++) {
      pos += r.readVarint() + 1;
      if (pos >= n || pos < 0) {
        throw BitReader.corrupt("exception position " + pos + " of " + n + " samples");
      }
      h.excPos[e] = (int) pos;
      h.excBits[e] = r.readLong();
    }
    return h;
  }

  static void readBits(Header h, BitReader r, long[] out, int n) {
    int o = h.order;
    int kk = h.k;
    long b = h.bias;
    int s = h.scale;
    long m = h.first;
    long d = h.firstDelta;
    for (int i = 0; i < n; i++) {
      if (i < o) {
        m = i == 0 ? h.first : h.first + h.firstDelta;
      } else {
        long x = BitReader.unzigzag(r.readRice(kk)) + b;
        if (o == 0) {
          m = x;
        } else if (o == 1) {
          m += x;
        } else {
          d += x;
          m += d;
        }
      }
      out[i] = h.rawBits ? m : bitsOf(m, s);
    }
    for (int e = 0; e < h.excPos.length; e++) {
      out[h.excPos[e]] = h.excBits[e];
    }
  }

  static long bitsOf(long m, int s) {
    double v = s >= 0 ? (double) m / POW10[s] : (double) m * POW10[-s];
    return Double.doubleToRawLongBits(v);
  }

  /** Shortest (mantissa, scale) of one value into mant[i], scale[i]; false if there is none. */
  private boolean decimalOf(long bits, int i) {
    double v = Double.longBitsToDouble(bits);
    if (!Double.isFinite(v) || bits == Long.MIN_VALUE) { // Long.MIN_VALUE = bits of -0.0
      return false;
    }
    if (Math.abs(v) < MAX_EXACT) {
      for (int s = 0; s <= MAX_SCALE; s++) {
        double scaled = v * POW10[s];
        if (Math.abs(scaled) > MAX_EXACT) {
          return false;
        }
        long m = Math.round(scaled);
        if (bitsOf(m, s) == bits) {
          mant[i] = m;
          scale[i] = s;
          return true;
        }
      }
      return false;
    }
    for (int s = -1; s >= -MAX_SCALE; s--) {
      long m = Math.round(v / POW10[-s]);
      if (Math.abs(m) <= MAX_EXACT && bitsOf(m, s) == bits) {
        mant[i] = m;
        scale[i] = s;
        return true;
      }
    }
    return false;
  }

  /** The scale that keeps the most values exact (the smaller on ties). */
  private int chooseScale(int n, int minS, int maxS) {
    int bestS = maxS;
    int bestFit = -1;
    for (int cand = minS; cand <= maxS; cand++) {
      int fit = 0;
      for (int i = 0; i < n; i++) {
        if (!isExc[i] && fits(mant[i], cand - scale[i])) {
          fit++;
        }
      }
      if (fit > bestFit) {
        bestFit = fit;
        bestS = cand;
      }
    }
    return bestS;
  }

  private static boolean fits(long m, int up) {
    if (up < 0) {
      return false;
    }
    if (m == 0) {
      return true;
    }
    return up < LONG_POW10.length && Math.abs(m) <= MAX_EXACT / LONG_POW10[up];
  }

  private boolean rescale(int i, int s) {
    int up = s - scale[i];
    if (!fits(mant[i], up)) {
      return false;
    }
    // Zero fits any scale; 10^up may not exist as a long (up > 18).
    if (mant[i] != 0) {
      mant[i] *= LONG_POW10[up];
    }
    scale[i] = s;
    return true;
  }

  /** Common trailing decimal zeros (e.g. MiB counts in bytes) become a negative scale. */
  private void stripTrailingZeros(int n) {
    boolean anyNonZero = false;
    for (int i = 0; i < n; i++) {
      anyNonZero |= !isExc[i] && mant[i] != 0;
    }
    if (!anyNonZero) {
      return;
    }
    while (blockScale > -MAX_SCALE) {
      for (int i = 0; i < n; i++) {
        if (!isExc[i] && mant[i] % 10 != 0) {
          return;
        }
      }
      for (int i = 0; i < n; i++) {
        if (!isExc[i]) {
          mant[i] /= 10;
        }
      }
      blockScale--;
    }
  }

  /** Exceptions take their neighbour's mantissa so that they cost ~nothing in the stream. */
  private void fillExceptions(int n) {
    if (exceptions == 0) {
      return;
    }
    int firstOk = 0;
    while (isExc[firstOk]) {
      firstOk++;
    }
    for (int i = 0; i < n; i++) {
      if (isExc[i]) {
        mant[i] = i < firstOk ? mant[firstOk] : mant[i - 1];
      }
    }
  }

  private static int varintLenZ(long v) {
    return TimestampEncoding.varintLen(BitWriter.zigzag(v));
  }
}
