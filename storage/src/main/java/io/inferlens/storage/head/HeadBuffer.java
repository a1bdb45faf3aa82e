package io.inferlens.storage.head;

import io.inferlens.storage.chunk.Bits;
import java.util.Arrays;

/**
 * The head samples of one series that are not yet in chunks: timestamps (milliseconds) strictly
 * ascending with their raw IEEE-754 value bits, kept compressed in memory.
 *
 * <p>Encoding: a Gorilla-style bit stream (Pelkonen et al., "Gorilla: A Fast, Scalable,
 * In-Memory Time Series Database", VLDB 2015, §4.1), most significant bit first. The first
 * sample is 64 raw timestamp bits and 64 raw value bits; every later one is the delta of
 * timestamp deltas ({@code dod}, the first delta counted from 0) and the XOR with the previous
 * value:
 *
 * <pre>
 *   dod == 0                   '0'
 *   -2^13 ≤ dod &lt; 2^13      '10'   + 14 bits
 *   -2^16 ≤ dod &lt; 2^16      '110'  + 17 bits
 *   -2^19 ≤ dod &lt; 2^19      '1110' + 20 bits
 *   otherwise                  '1111' + 64 bits
 *   xor == 0                   '0'
 *   xor inside the previous window of meaningful bits          '10' + the window's bits
 *   otherwise   '11' + leading zeros (6 bits) + meaningful bits - 1 (6 bits) + the meaningful bits
 * </pre>
 *
 * A scrape-interval series of slowly moving gauges, counters or histogram buckets costs about
 * 1–4 bytes a sample here against 16 as two {@code long}s: with 100,000 series and a 2 M-sample
 * head that is the difference between ~50 MB and ~10 MB of live heap. Values are raw bits end to
 * end: NaN payloads (Prometheus's stale marker {@code 0x7ff0000000000002}) survive unchanged.
 *
 * <p>Appends in timestamp order cost O(1). An older sample (backfill, rare) goes to a small
 * sorted side buffer, which is merged into the stream (decode, merge, re-encode) when it
 * outgrows {@link #MAX_SIDE_SAMPLES} or an eighth of the stream (not while a head flush holds a
 * cut, whose samples are the stream's prefix), so n out-of-order appends cost
 * O(n) amortized per sample at worst. Lookups by timestamp at or before the newest sample decode
 * the stream (a sample newer than the series' newest needs none): on from the previous lookup's
 * position when the timestamp lies after it, as a replaying sender's re-sent samples do, else
 * from the start (duplicates, backfill).
 *
 * <p>Thread safety: none; the store's {@code SeriesRef} guards its buffers with its own monitor.
 */
public final class HeadBuffer {

  /** What {@link #maxTimestampMs()} answers for an empty buffer (the store's no-sample mark). */
  public static final long NO_SAMPLES = Long.MIN_VALUE;

  /** Side-buffer size (samples) below which it is not merged whatever the stream's size. */
  public static final int MAX_SIDE_SAMPLES = 64;

  private static final int INITIAL_BYTES = 24;

  /** The stream; bits {@code [0, bitLen)} are written. */
  private byte[] buf = new byte[INITIAL_BYTES];
  private int bitLen;
  /** Samples in the stream. */
  private int streamSize;
  private long lastTs;
  private long lastDelta;
  private long lastBits;
  /** Leading zeros of the XOR window, -1 before the first window; 0..63. */
  private byte lastLeading;
  /** Trailing zeros of the XOR window, 0..63. */
  private byte lastTrailing;
  /**
   * Whether a head flush holds a {@link #cut}: the stream's prefix is then what it writes, so the
   * side buffer is not merged into the stream (which would reorder that prefix) until
   * {@link #dropFirst} or {@link #uncut}.
   */
  private boolean cutPending;

  /**
   * Out-of-order samples, none in the stream, and the lookup cursor; null when there are neither
   * (dropped whenever the stream is rewritten, which also makes the cursor invalid).
   */
  private Side side;

  private static final long[] NO_LONGS = new long[0];

  /**
   * The side buffer: samples older than the stream's newest, ascending, and {@link #bitsAt}'s
   * cursor. A holder instead of four fields keeps every head buffer 8 bytes smaller (56 with
   * compressed references) for what only backfilled or re-sent series use; with the first
   * timestamp read from the stream and the window as bytes, 24 bytes less a series than before
   * (2.4 MB at 100,000 series). A holder for the cursor alone is about 90 bytes with it.
   */
  private static final class Side {
    long[] ts = NO_LONGS;
    long[] bits = NO_LONGS;
    int size;
    /**
     * Where the last stream lookup stopped: a sender re-sending head samples (a replay) asks for
     * ascending timestamps, so the next lookup decodes on from here instead of from the start.
     * Valid while the stream is only appended to; null before the first lookup.
     */
    Reader cursor;
  }

  /** Largest stream, in bytes, that {@link #clear} keeps for reuse; a bigger one is dropped. */
  public static final int MAX_REUSED_BYTES = 4096;

  /**
   * Empties the buffer and keeps its stream array for the next samples: a head flush empties
   * the buffers of 100,000 series on the bench, and new ones would leave as many (~16 MB, alive
   * for minutes) to the old generation. A stream longer than {@link #MAX_REUSED_BYTES} is
   * replaced by a small one, so a rare long head does not pin its memory.
   */
  public void clear() {
    if (buf.length > MAX_REUSED_BYTES) {
      buf = new byte[INITIAL_BYTES];
    } else {
      Arrays.fill(buf, 0, (bitLen + 7) >>> 3, (byte) 0); // writeBits ORs into zero bytes
    }
    bitLen = 0;
    streamSize = 0;
    lastTs = 0;
    lastDelta = 0;
    lastBits = 0;
    lastLeading = 0;
    lastTrailing = 0;
    side = null;
    cutPending = false;
  }

  /**
   * Marks where a head flush cuts: merges the side buffer into the stream, so that every sample
   * present now is in the stream's first {@link #size()} samples and every later one (appended
   * or backfilled while the flush writes) lands after them or in a new side buffer.
   *
   * @return the number of samples the flush takes, the prefix of the stream
   */
  public int cut() {
    if (sideSize() > 0) {
      mergeSide();
    }
    cutPending = true;
    return streamSize;
  }

  /** Forgets the {@link #cut} of a head flush that failed: its samples stay, as head samples. */
  public void uncut() {
    cutPending = false;
    if (sideSize() > Math.max(MAX_SIDE_SAMPLES, streamSize / 8)) {
      mergeSide();
    }
  }

  /**
   * Decodes the stream's first {@code n} samples, ascending.
   *
   * @param n a count from {@link #cut()}, at most the stream's size
   * @param ts receives the timestamps, milliseconds; length ≥ {@code n}
   * @param bits receives the raw value bits; length ≥ {@code n}
   * @throws IllegalArgumentException if {@code n} exceeds the stream's size
   */
  public void decodePrefix(int n, long[] ts, long[] bits) {
    if (n > streamSize) {
      throw new IllegalArgumentException("prefix of " + n + " samples, the stream has "
          + streamSize);
    }
    Reader r = new Reader();
    for (int i = 0; i < n; i++) {
      r.next();
      ts[i] = r.ts;
      bits[i] = r.bits;
    }
  }

  /**
   * Removes the stream's first {@code n} samples once a head flush has written them to chunks.
   * When they were all of it, the buffer is {@link #clear cleared} for reuse in place; otherwise
   * the samples added since the cut are re-encoded as a new stream (a few per series: those of
   * the flush's own duration).
   *
   * @param n a count from {@link #cut()}, at most the stream's size
   * @throws IllegalArgumentException if {@code n} exceeds the stream's size
   */
  public void dropFirst(int n) {
    if (n > streamSize) {
      throw new IllegalArgumentException("dropping " + n + " samples, the stream has "
          + streamSize);
    }
    cutPending = false;
    if (n == 0) {
      return;
    }
    if (n == streamSize && sideSize() == 0) {
      clear();
      return;
    }
    int keep = size() - n;
    long[] ts = new long[keep];
    long[] bits = new long[keep];
    mergeInto(n, ts, bits);
    clear();
    for (int i = 0; i < keep; i++) {
      append(ts[i], bits[i]); // ascending and distinct: all into the stream
    }
  }

  private int sideSize() {
    Side sd = side;
    return sd == null ? 0 : sd.size;
  }

  /** The stream's first timestamp, its first 64 bits; the stream must not be empty. */
  private long firstTs() {
    byte[] b = buf;
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = (v << 8) | (b[i] & 0xFF);
    }
    return v;
  }

  /** @return the number of samples */
  public int size() {
    return streamSize + sideSize();
  }

  /**
   * Reads the byte the next append writes to, for the append path's touch pass: loading
   * it early, for many series in one tight loop, lets the CPU overlap the cache misses.
   *
   * @return that byte's value, or the stream length when it is full
   */
  public int touch() {
    int i = bitLen >>> 3;
    byte[] b = buf;
    return i < b.length ? b[i] : b.length;
  }

  /** @return the newest timestamp, milliseconds, or {@link #NO_SAMPLES} when empty */
  public long maxTimestampMs() {
    if (streamSize == 0) {
      return sideSize() == 0 ? NO_SAMPLES : side.ts[sideSize() - 1];
    }
    return sideSize() == 0 ? lastTs : Math.max(lastTs, side.ts[sideSize() - 1]);
  }

  /** @return the oldest timestamp, or {@code Long.MAX_VALUE} when empty */
  public long minTimestampMs() {
    long min = streamSize == 0 ? Long.MAX_VALUE : firstTs();
    return sideSize() == 0 ? min : Math.min(min, side.ts[0]);
  }

  /**
   * Looks a sample up. In the stream it decodes on from where the previous lookup stopped when
   * {@code timestampMs} lies after it (a replay asks in ascending order: O(1) amortized a sample),
   * from the start otherwise; so this moves a cursor and is not a pure read (callers hold the
   * series' monitor either way).
   *
   * @param timestampMs the timestamp, milliseconds
   * @return the raw value bits stored at {@code timestampMs}, or null when there is no sample
   */
  public Long bitsAt(long timestampMs) {
    if (size() == 0 || timestampMs > maxTimestampMs() || timestampMs < minTimestampMs()) {
      return null;
    }
    if (sideSize() > 0) {
      int i = Arrays.binarySearch(side.ts, 0, sideSize(), timestampMs);
      if (i >= 0) {
        return side.bits[i];
      }
    }
    if (streamSize == 0 || timestampMs > lastTs || timestampMs < firstTs()) {
      return null;
    }
    if (timestampMs == lastTs) {
      return lastBits;
    }
    Side sd = side;
    Reader r = sd == null ? null : sd.cursor;
    if (r != null && r.read > 0 && r.ts == timestampMs) {
      return r.bits;
    }
    if (r == null || r.read == 0 || r.ts > timestampMs) {
      r = new Reader();
      if (sd == null) {
        sd = new Side();
        side = sd;
      }
      sd.cursor = r;
    }
    while (r.read < streamSize) {
      r.next();
      if (r.ts == timestampMs) {
        return r.bits;
      }
      if (r.ts > timestampMs) {
        return null;
      }
    }
    return null;
  }

  /**
   * Adds a sample whose timestamp is not yet present.
   *
   * @param timestampMs the timestamp, milliseconds
   * @param valueBits raw IEEE-754 bits
   * @throws IllegalStateException if the timestamp is the newest or in the side buffer (a bug:
   *     callers check with {@link #bitsAt} first; a present sample elsewhere in the stream is not
   *     looked for, since that would decode the stream on every backfilled sample)
   */
  public void add(long timestampMs, long valueBits) {
    // The side buffer only ever holds samples older than the stream's newest (it is empty while
    // the stream is), so a sample newer than that extends the stream.
    if (streamSize == 0 || timestampMs > lastTs) {
      append(timestampMs, valueBits);
    } else {
      addToSide(timestampMs, valueBits);
    }
  }

  /**
   * Copies the samples in {@code [startMs, endMs]} into {@code out}, ascending.
   *
   * @return how many were copied
   */
  public int copyRange(long startMs, long endMs, SampleRun out) {
    if (size() == 0 || endMs < minTimestampMs() || startMs > maxTimestampMs()) {
      return 0;
    }
    int n = 0;
    Reader r = new Reader();
    int s = 0;
    for (int i = 0; i < streamSize; i++) {
      r.next();
      while (s < sideSize() && side.ts[s] < r.ts) {
        n += copyIfIn(side.ts[s], side.bits[s], startMs, endMs, out);
        s++;
      }
      if (r.ts > endMs && s >= sideSize()) {
        return n;
      }
      n += copyIfIn(r.ts, r.bits, startMs, endMs, out);
    }
    for (; s < sideSize(); s++) {
      n += copyIfIn(side.ts[s], side.bits[s], startMs, endMs, out);
    }
    return n;
  }

  private static int copyIfIn(long t, long b, long startMs, long endMs, SampleRun out) {
    if (t >= startMs && t <= endMs) {
      out.add(t, b);
      return 1;
    }
    return 0;
  }

  /**
   * Decodes every sample, ascending, into the arrays.
   *
   * @param ts receives the timestamps, milliseconds; length ≥ {@link #size()}
   * @param bits receives the raw value bits; length ≥ {@link #size()}
   * @return {@link #size()}
   */
  public int decodeInto(long[] ts, long[] bits) {
    return mergeInto(0, ts, bits);
  }

  /**
   * The stream without its first {@code skip} samples, merged with the whole side buffer, in
   * timestamp order (the side buffer holds no timestamp of the stream).
   *
   * @return the number of samples written
   */
  private int mergeInto(int skip, long[] ts, long[] bits) {
    Reader r = new Reader();
    int s = 0;
    int n = 0;
    for (int i = 0; i < streamSize; i++) {
      r.next();
      if (i < skip) {
        continue;
      }
      while (s < sideSize() && side.ts[s] < r.ts) {
        ts[n] = side.ts[s];
        bits[n++] = side.bits[s++];
      }
      ts[n] = r.ts;
      bits[n++] = r.bits;
    }
    while (s < sideSize()) {
      ts[n] = side.ts[s];
      bits[n++] = side.bits[s++];
    }
    return n;
  }

  private void addToSide(long timestampMs, long valueBits) {
    Side sd = side;
    if (sd == null) {
      sd = new Side();
      side = sd;
    }
    int size = sd.size;
    int at = Arrays.binarySearch(sd.ts, 0, size, timestampMs);
    if (at >= 0 || (streamSize > 0 && timestampMs == lastTs)) {
      throw new IllegalStateException("bug: timestamp " + timestampMs + " already in the head");
    }
    at = -at - 1;
    if (size == sd.ts.length) {
      sd.ts = Arrays.copyOf(sd.ts, Math.max(4, size * 2));
      sd.bits = Arrays.copyOf(sd.bits, Math.max(4, size * 2));
    }
    System.arraycopy(sd.ts, at, sd.ts, at + 1, size - at);
    System.arraycopy(sd.bits, at, sd.bits, at + 1, size - at);
    sd.ts[at] = timestampMs;
    sd.bits[at] = valueBits;
    sd.size = ++size;
    if (!cutPending && size > Math.max(MAX_SIDE_SAMPLES, streamSize / 8)) {
      mergeSide();
    }
  }

  /** Re-encodes stream and side buffer as one stream. */
  private void mergeSide() {
    int n = size();
    long[] ts = new long[n];
    long[] bits = new long[n];
    decodeInto(ts, bits);
    buf = new byte[Math.max(INITIAL_BYTES, buf.length)];
    bitLen = 0;
    streamSize = 0;
    side = null;
    for (int i = 0; i < n; i++) {
      append(ts[i], bits[i]);
    }
  }

  /**
   * Appends to the stream a sample newer than its newest. Codes are concatenated before they are
   * written (same bits, MSB first): one {@link #writeBits} call for most samples, not four, since
   * each is a call into {@link Bits#put} under the launcher's inlining limits.
   */
  private void append(long t, long v) {
    if (streamSize == 0) {
      writeBits(t, 64);
      writeBits(v, 64);
      lastDelta = 0;
      lastLeading = -1; // no window yet
    } else {
      long delta = t - lastTs;
      long dod = delta - lastDelta;
      long c; // the dod's code, cn bits (at most 24), not yet written
      int cn;
      if (dod == 0) {
        c = 0;
        cn = 1;
      } else if (dod >= -(1L << 13) && dod < (1L << 13)) {
        c = (0b10L << 14) | (dod & ((1L << 14) - 1));
        cn = 16;
      } else if (dod >= -(1L << 16) && dod < (1L << 16)) {
        c = (0b110L << 17) | (dod & ((1L << 17) - 1));
        cn = 20;
      } else if (dod >= -(1L << 19) && dod < (1L << 19)) {
        c = (0b1110L << 20) | (dod & ((1L << 20) - 1));
        cn = 24;
      } else {
        writeBits(0b1111, 4);
        writeBits(dod, 64);
        c = 0;
        cn = 0;
      }
      lastDelta = delta;
      long x = v ^ lastBits;
      if (x == 0) {
        writeBits(c << 1, cn + 1);
      } else {
        int leading = Long.numberOfLeadingZeros(x);
        int trailing = Long.numberOfTrailingZeros(x);
        long h; // the XOR's header, hn bits, then its m meaningful bits p
        int hn;
        int m;
        long p;
        if (lastLeading >= 0 && leading >= lastLeading && trailing >= lastTrailing) {
          h = 0b10;
          hn = 2;
          m = 64 - lastLeading - lastTrailing;
          p = x >>> lastTrailing;
        } else {
          m = 64 - leading - trailing;
          h = (0b11L << 12) | (leading << 6) | (m - 1);
          hn = 14;
          p = x >>> trailing;
          lastLeading = (byte) leading;
          lastTrailing = (byte) trailing;
        }
        int ch = cn + hn; // 2..38
        if (ch + m <= 64) {
          writeBits((((c << hn) | h) << m) | p, ch + m); // m <= 62 here: no shift by 64
        } else {
          writeBits((c << hn) | h, ch);
          writeBits(p, m);
        }
      }
    }
    lastTs = t;
    lastBits = v;
    streamSize++;
  }

  /** Writes the low {@code n} bits of {@code v} (1 ≤ n ≤ 64), most significant first. */
  private void writeBits(long v, int n) {
    // Kept under 50 bytecodes (growth out of line) so it inlines into append() under the
    // launcher's -XX:FreqInlineSize=50, leaving one call a write, to Bits.put, as before.
    int end = bitLen + n;
    if (end > buf.length << 3) {
      grow(end);
    }
    Bits.put(buf, bitLen, v, n); // ORs into the zero bytes past bitLen (clear() keeps them zero)
    bitLen = end;
  }

  /** Makes {@code buf} hold {@code endBits} bits, growing it by half plus 8 bytes at least. */
  private void grow(int endBits) {
    buf = Arrays.copyOf(buf, Math.max((endBits + 7) >>> 3, buf.length + (buf.length >> 1) + 8));
  }

  /** Sequential decoder of the stream. */
  private final class Reader {
    private int pos;
    private int read;
    private long delta;
    private int leading;
    private int trailing;
    long ts;
    long bits;

    void next() {
      if (read == 0) {
        ts = readBits(64);
        bits = readBits(64);
      } else {
        long dod;
        if (readBits(1) == 0) {
          dod = 0;
        } else if (readBits(1) == 0) {
          dod = signExtend(readBits(14), 14);
        } else if (readBits(1) == 0) {
          dod = signExtend(readBits(17), 17);
        } else if (readBits(1) == 0) {
          dod = signExtend(readBits(20), 20);
        } else {
          dod = readBits(64);
        }
        delta += dod;
        ts += delta;
        if (readBits(1) == 1) {
          if (readBits(1) == 1) {
            leading = (int) readBits(6);
            int meaningful = (int) readBits(6) + 1;
            trailing = 64 - leading - meaningful;
          }
          int meaningful = 64 - leading - trailing;
          bits ^= readBits(meaningful) << trailing;
        }
      }
      read++;
    }

    private long readBits(int n) {
      int p = pos;
      pos = p + n;
      return Bits.get(buf, p, n); // within bitLen: next() reads only the samples written
    }
  }

  private static long signExtend(long v, int bits) {
    return (v << (64 - bits)) >> (64 - bits);
  }
}
