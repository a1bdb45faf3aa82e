package io.inferlens.storage.head;

import io.inferlens.storage.Varints;
import java.util.Arrays;

/**
 * Encodes and decodes one head-log record: the samples one append accepted, written under key
 * {@code be64(sequence)} of the {@code head_log} column family in the same RocksDB batch as any
 * series the append created. The record is what makes an acknowledged sample durable until a head
 * flush puts it in a chunk; a restart replays the records in sequence order into the head.
 *
 * <p>Layout (FORMAT.md "Head log"): repeated {@code varint(series id) varint(n)} then n times
 * {@code zigzag-varint(timestamp - previous timestamp) be64(raw value bits)}, the first
 * "previous" being 0. About 10-11 bytes per sample at a regular scrape interval.
 *
 * <p>Thread safety: an encoder instance is not thread safe (the store uses one under its append
 * lock); {@link #decode} is static and stateless.
 */
public final class HeadLog {

  /** Receives the decoded samples of one series. */
  public interface Visitor {
    /**
     * @param seriesId the series
     * @param timestampMs the sample's timestamp, milliseconds
     * @param valueBits raw IEEE-754 bits
     */
    void sample(long seriesId, long timestampMs, long valueBits);
  }

  private byte[] buf = new byte[1 << 16];
  private int pos;

  /** Starts a new record. */
  public void reset() {
    pos = 0;
  }

  /** Appends one series' samples; {@code ts} and {@code bits} are read in {@code [0, n)}. */
  public void addSeries(long seriesId, long[] ts, long[] bits, int n) {
    ensure(20 + n * 18);
    putVarint(seriesId);
    putVarint(n);
    long prev = 0;
    for (int i = 0; i < n; i++) {
      long d = ts[i] - prev;
      prev = ts[i];
      putVarint((d << 1) ^ (d >> 63));
      long b = bits[i];
      for (int s = 56; s >= 0; s -= 8) {
        buf[pos++] = (byte) (b >>> s);
      }
    }
  }

  /** @return whether the record holds no series */
  public boolean isEmpty() {
    return pos == 0;
  }

  /** @return the record bytes, fresh array */
  public byte[] toBytes() {
    return Arrays.copyOf(buf, pos);
  }

  private void ensure(int more) {
    if (pos + more > buf.length) {
      buf = Arrays.copyOf(buf, Math.max(buf.length * 2, pos + more));
    }
  }

  private void putVarint(long v) {
    while ((v & ~0x7FL) != 0) {
      buf[pos++] = (byte) ((v & 0x7F) | 0x80);
      v >>>= 7;
    }
    buf[pos++] = (byte) v;
  }

  /**
   * Decodes a record.
   *
   * @param record bytes written by {@link #toBytes()}
   * @param visitor receives every sample in record order
   * @throws IllegalStateException if the record is truncated or malformed (a corrupt store)
   */
  public static void decode(byte[] record, Visitor visitor) {
    int[] p = {0};
    while (p[0] < record.length) {
      long id = Varints.get(record, p, "head-log record");
      long n = Varints.get(record, p, "head-log record");
      long prev = 0;
      for (long i = 0; i < n; i++) {
        long z = Varints.get(record, p, "head-log record");
        long ts = prev + ((z >>> 1) ^ -(z & 1));
        prev = ts;
        if (p[0] + 8 > record.length) {
          throw new IllegalStateException("corrupt head-log record: truncated value of series "
              + id + " at byte " + p[0] + " of " + record.length);
        }
        long bits = getBe64(record, p[0]);
        p[0] += 8;
        visitor.sample(id, ts, bits);
      }
    }
  }


  /** @return the big-endian long at {@code b[off..off+8)} */
  private static long getBe64(byte[] b, int off) {
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = (v << 8) | (b[off + i] & 0xff);
    }
    return v;
  }
}
