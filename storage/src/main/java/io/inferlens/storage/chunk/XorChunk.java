package io.inferlens.storage.chunk;

import java.util.Arrays;

/**
 * Prometheus's XOR ("Gorilla") float chunk, byte for byte as Prometheus writes it (read-only
 * reference: Prometheus {@code tsdb/chunkenc/xor.go} and {@code bstream.go},
 * {@code tsdb/docs/format/chunks.md}), so a Prometheus remote-read client can iterate the chunks
 * InferLens sends in {@code STREAMED_XOR_CHUNKS} responses.
 *
 * <p>Layout; bits are written most significant first, the last byte padded with zero bits:
 *
 * <pre>
 * ┌──────────────────────┬──────────────────────┬─────────────────┬────────────────────────┬─────────────────────┬───
 * │ num samples: 2 bytes │ t0: varint (zigzag)  │ v0: 64 raw bits │ t1 - t0: uvarint       │ v1: XOR (see below) │ ...
 * │ big endian, uint16   │ milliseconds         │ IEEE-754        │ milliseconds           │                     │
 * └──────────────────────┴──────────────────────┴─────────────────┴────────────────────────┴─────────────────────┴───
 *
 * then for each sample n ≥ 2: the delta of deltas dod = (t_n - t_{n-1}) - (t_{n-1} - t_{n-2}):
 *   dod == 0                              → '0'
 *   -(2^13 - 1) ≤ dod ≤ 2^13              → '10'   + dod in 14 bits (two's complement)
 *   -(2^16 - 1) ≤ dod ≤ 2^16              → '110'  + dod in 17 bits
 *   -(2^19 - 1) ≤ dod ≤ 2^19              → '1110' + dod in 20 bits
 *   otherwise                             → '1111' + dod in 64 bits
 * followed by the value as x = bits(v_n) XOR bits(v_{n-1}):
 *   x == 0                                                    → '0'
 *   x's set bits fit the previous window (leading ≥ previous leading and trailing ≥ previous
 *   trailing)                                                 → '10' + the window's bits of x
 *   otherwise                                                 → '11' + leading zeros in 5 bits (capped at 31)
 *                                                                  + significant bits in 6 bits (64 written as 0)
 *                                                                  + the significant bits of x
 * </pre>
 *
 * <p>Values are raw IEEE-754 bits end to end: NaN payloads, including Prometheus's stale marker
 * {@code 0x7ff0000000000002}, survive a round trip unchanged.
 *
 * <p>Thread safety: stateless; every method allocates what it returns and the caller owns it.
 */
public final class XorChunk {

  /**
   * Samples per chunk that InferLens sends: Prometheus's head aims at 120 samples a float chunk
   * (its default {@code samplesPerChunk}), which keeps one chunk near 1–2 bytes a sample and
   * bounds a reader's work per chunk. Prometheus itself sometimes writes a few more (it spreads
   * samples evenly over a chunk's time range), so {@link #encode} takes up to
   * {@link #MAX_ENCODABLE_SAMPLES}.
   */
  public static final int MAX_SAMPLES = 120;

  /** The format's limit: the sample count is a 2-byte unsigned header. */
  public static final int MAX_ENCODABLE_SAMPLES = 0xFFFF;

  /** Bytes of the sample-count header. */
  private static final int HEADER_BYTES = 2;

  private XorChunk() {}

  /**
   * Encodes {@code count} samples starting at {@code from} as one XOR chunk.
   *
   * @param timestampsMs timestamps in milliseconds, strictly ascending
   * @param valueBits raw IEEE-754 bits of the values, same indexing as {@code timestampsMs}
   * @param from index of the first sample
   * @param count number of samples, 1 to {@link #MAX_ENCODABLE_SAMPLES}; InferLens's chunks hold at
   *     most {@link #MAX_SAMPLES}
   * @return the chunk bytes, exactly as Prometheus's {@code XORChunk.Bytes()} would hold them
   * @throws IllegalArgumentException if {@code count} is out of range, the indexes fall outside the
   *     arrays, or the timestamps are not strictly ascending (delta-of-delta encoding does not
   *     take negative or zero deltas here: the store keeps each timestamp once, in order)
   */
  public static byte[] encode(long[] timestampsMs, long[] valueBits, int from, int count) {
    if (count < 1 || count > MAX_ENCODABLE_SAMPLES) {
      throw new IllegalArgumentException("an XOR chunk holds 1 to " + MAX_ENCODABLE_SAMPLES
          + " samples, not " + count);
    }
    if (from < 0 || from + count > timestampsMs.length || from + count > valueBits.length) {
      throw new IllegalArgumentException("samples [" + from + ", " + (from + count)
          + ") outside arrays of " + timestampsMs.length + " timestamps and " + valueBits.length
          + " values");
    }
    // 2 header bytes, up to 10 for t0, 8 for v0, and at most 4+64 bits of timestamp plus
    // 2+5+6+64 bits of value for each further sample: 18 bytes a sample bounds it.
    BitWriter w = new BitWriter(HEADER_BYTES + 18 + 18 * count);
    w.writeHeader(count);
    long t = timestampsMs[from];
    long v = valueBits[from];
    w.writeVarint(t);
    w.writeBits(v, 64);
    long tDelta = 0;
    int leading = 0xff; // Prometheus's "no window yet"
    int trailing = 0;
    for (int i = from + 1; i < from + count; i++) {
      long ti = timestampsMs[i];
      long d = ti - t;
      if (d <= 0) {
        throw new IllegalArgumentException("timestamps must be strictly ascending: sample " + i
            + " at " + ti + " ms follows " + t + " ms");
      }
      if (i == from + 1) {
        w.writeUvarint(d);
      } else {
        long dod = d - tDelta;
        if (dod == 0) {
          w.writeBit(0);
        } else if (bitRange(dod, 14)) {
          w.writeBits(0b10, 2);
          w.writeBits(dod, 14);
        } else if (bitRange(dod, 17)) {
          w.writeBits(0b110, 3);
          w.writeBits(dod, 17);
        } else if (bitRange(dod, 20)) {
          w.writeBits(0b1110, 4);
          w.writeBits(dod, 20);
        } else {
          w.writeBits(0b1111, 4);
          w.writeBits(dod, 64);
        }
      }
      long vi = valueBits[i];
      long x = vi ^ v;
      if (x == 0) {
        w.writeBit(0);
      } else {
        w.writeBit(1);
        int newLeading = Long.numberOfLeadingZeros(x);
        int newTrailing = Long.numberOfTrailingZeros(x);
        // 5 bits hold the leading-zero count: cap at 31 (the window just grows).
        if (newLeading >= 32) {
          newLeading = 31;
        }
        if (leading != 0xff && newLeading >= leading && newTrailing >= trailing) {
          w.writeBit(0);
          w.writeBits(x >>> trailing, 64 - leading - trailing);
        } else {
          leading = newLeading;
          trailing = newTrailing;
          int significant = 64 - leading - trailing;
          w.writeBit(1);
          w.writeBits(leading, 5);
          // 64 significant bits do not fit 6 bits; they are written as 0 and read back as 64.
          w.writeBits(significant, 6);
          w.writeBits(x >>> trailing, significant);
        }
      }
      tDelta = d;
      t = ti;
      v = vi;
    }
    return w.toByteArray();
  }

  /** Prometheus's {@code bitRange}: whether x fits the nbits bucket, -(2^(n-1)-1) … 2^(n-1). */
  private static boolean bitRange(long x, int nbits) {
    return -((1L << (nbits - 1)) - 1) <= x && x <= 1L << (nbits - 1);
  }

  /**
   * @param chunk XOR chunk bytes
   * @return the sample count in its header
   * @throws IllegalArgumentException if there is no header
   */
  public static int sampleCount(byte[] chunk) {
    if (chunk.length < HEADER_BYTES) {
      throw new IllegalArgumentException("XOR chunk of " + chunk.length + " bytes has no header");
    }
    return ((chunk[0] & 0xff) << 8) | (chunk[1] & 0xff);
  }

  /**
   * Samples decoded from a chunk.
   *
   * @param timestampsMs timestamps in milliseconds, in chunk order
   * @param valueBits raw IEEE-754 bits, same length
   */
  public record Samples(long[] timestampsMs, long[] valueBits) {

    /** @return the number of samples */
    public int size() {
      return timestampsMs.length;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Samples s && Arrays.equals(timestampsMs, s.timestampsMs)
          && Arrays.equals(valueBits, s.valueBits);
    }

    @Override
    public int hashCode() {
      return 31 * Arrays.hashCode(timestampsMs) + Arrays.hashCode(valueBits);
    }

    @Override
    public String toString() {
      return "Samples" + Arrays.toString(timestampsMs) + "/" + Arrays.toString(valueBits);
    }
  }

  /**
   * Decodes a chunk the way Prometheus's {@code xorIterator} does; for tests and for checking
   * what was sent.
   *
   * @param chunk XOR chunk bytes
   * @return its samples
   * @throws IllegalArgumentException if the chunk ends early
   */
  public static Samples decode(byte[] chunk) {
    int n = sampleCount(chunk);
    long[] ts = new long[n];
    long[] bits = new long[n];
    // The codecs' shared reader: Prometheus's varints here are byte aligned (after the header
    // and after the first value's 64 bits), as BitReader's varints require.
    BitReader r = new BitReader(chunk, HEADER_BYTES, chunk.length - HEADER_BYTES);
    long t = 0;
    long v = 0;
    long tDelta = 0;
    int leading = 0;
    int trailing = 0;
    for (int i = 0; i < n; i++) {
      if (i == 0) {
        t = r.readSignedVarint();
        v = r.readBits(64);
      } else {
        if (i == 1) {
          tDelta = r.readVarint();
        } else {
          int prefix = 0;
          int ones = 0;
          while (ones < 4 && r.readBit()) {
            ones++;
          }
          prefix = ones;
          int size;
          switch (prefix) {
            case 0: size = 0; break;
            case 1: size = 14; break;
            case 2: size = 17; break;
            case 3: size = 20; break;
            default: size = 64; break;
          }
          long dod = 0;
          if (size > 0) {
            dod = r.readBits(size);
            if (size < 64 && dod > 1L << (size - 1)) {
              dod -= 1L << size; // sign-extend; 2^(size-1) itself stays positive, as in bitRange
            }
          }
          tDelta += dod;
        }
        t += tDelta;
        if (r.readBit()) {
          if (r.readBit()) {
            leading = (int) r.readBits(5);
            int significant = (int) r.readBits(6);
            if (significant == 0) {
              significant = 64;
            }
            trailing = 64 - leading - significant;
          }
          int significant = 64 - leading - trailing;
          v ^= r.readBits(significant) << trailing;
        }
      }
      ts[i] = t;
      bits[i] = v;
    }
    return new Samples(ts, bits);
  }

  /**
   * Appends bits most significant first, as Prometheus's {@code bstream} (tsdb/chunkenc/bstream.go)
   * does, including its length: {@code writeByte} always appends a fresh byte after the one it
   * fills, so a stream whose last write was whole bytes ends in an empty (zero) byte. Tracking
   * bstream's count of free bits in the last byte reproduces that length exactly.
   */
  private static final class BitWriter {
    private byte[] buf;
    private int bitLen;
    /** bstream's {@code count}: free bits in the stream's last byte, 0..8. */
    private int freeBits;

    BitWriter(int capacityBytes) {
      buf = new byte[capacityBytes];
    }

    /** The 2-byte sample count, which Prometheus writes into preallocated bytes, not the stream. */
    void writeHeader(int count) {
      put(count, 16);
    }

    void writeBit(int bit) {
      put(bit, 1);
      freeBits = (freeBits == 0 ? 8 : freeBits) - 1;
    }

    /** Writes the low {@code n} bits of {@code value}, 0 ≤ n ≤ 64: whole bytes, then bits. */
    void writeBits(long value, int n) {
      put(value, n);
      for (int k = n; k >= 8; k -= 8) {
        freeBits = freeBits == 0 ? 8 : freeBits; // writeByte
      }
      for (int k = n % 8; k > 0; k--) {
        freeBits = (freeBits == 0 ? 8 : freeBits) - 1; // writeBit
      }
    }

    private void put(long value, int n) {
      ensure(n);
      for (int i = n - 1; i >= 0; i--) {
        if (((value >>> i) & 1) != 0) {
          buf[bitLen >>> 3] |= (byte) (0x80 >>> (bitLen & 7));
        }
        bitLen++;
      }
    }

    /** Go's {@code binary.PutVarint}: zigzag, then uvarint. */
    void writeVarint(long x) {
      writeUvarint((x << 1) ^ (x >> 63));
    }

    /** Go's {@code binary.PutUvarint}: 7 bits a byte, low first, high bit = more follows. */
    void writeUvarint(long x) {
      while (Long.compareUnsigned(x, 0x80) >= 0) {
        writeBits((x & 0x7f) | 0x80, 8);
        x >>>= 7;
      }
      writeBits(x, 8);
    }

    private void ensure(int moreBits) {
      int needBytes = (bitLen + moreBits + 7) >>> 3;
      if (needBytes > buf.length) {
        buf = Arrays.copyOf(buf, Math.max(needBytes, buf.length * 2));
      }
    }

    /** @return the stream as bstream holds it: used bits plus the free bits of its last byte */
    byte[] toByteArray() {
      ensure(freeBits);
      return Arrays.copyOf(buf, (bitLen + freeBits) >>> 3);
    }
  }
}
