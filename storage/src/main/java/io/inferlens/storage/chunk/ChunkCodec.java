package io.inferlens.storage.chunk;

/**
 * Encodes a block of one series' samples (timestamps in milliseconds and raw IEEE-754 value bits)
 * into a compressed chunk, and decodes it back bit for bit: NaN payloads, the Prometheus stale
 * marker ({@code 0x7ff0000000000002}), ±Inf and -0.0 included. The layout is "Chunk format v1" in
 * {@code storage/FORMAT.md}.
 *
 * <p>Per chunk the encoder picks the cheapest of:
 *
 * <ul>
 *   <li>timestamps: residuals against a fixed-interval grid (a variant of Gorilla's
 *       delta-of-delta, see {@link TimestampEncoding}) or raw 64-bit values;
 *   <li>values: one constant; short decimals as integer mantissas with one decimal scale,
 *       differenced and Rice-coded (the VictoriaMetrics idea made lossless, see {@link
 *       DecimalEncoding}); the raw bits taken as integers, coded the same way (ulp deltas, for
 *       slowly moving full-mantissa doubles); or XORed doubles (Gorilla/Chimp, see {@link
 *       XorEncoding}).
 * </ul>
 *
 * <p>Chunk size: any 1..{@link #MAX_SAMPLES} samples. On the bench workload (15 s scrapes) the
 * per-chunk header costs about 15-25 bytes, so 120 samples (Prometheus' chunk) pay ~0.15 B/sample
 * for it and 480 samples (2 h) ~0.04 B/sample: see docs/BENCHMARKS.md, "Chunk encoding". Timestamps
 * need not be sorted or distinct (the store's rules are not this codec's business), but sorted
 * timestamps on a regular interval are what is cheap.
 *
 * <p>Thread safety: an instance keeps scratch arrays for {@link #encode}, reused across calls, so
 * use one instance per thread. {@link #decode} and {@link #count} are static and stateless.
 */
public final class ChunkCodec {

  /** Format version in the high nibble of the first byte. */
  public static final int FORMAT_VERSION = 1;

  /**
   * Most samples in one chunk: 2 h at a 1 s scrape interval is 7,200 samples; the bound keeps a
   * decoder's output arrays at most 128 KiB (2 x 8 bytes x 8,192) whatever a corrupt header says.
   */
  public static final int MAX_SAMPLES = 8192;

  static final int VALUES_CONST = 0;
  static final int VALUES_DECIMAL = 1;
  static final int VALUES_XOR = 2;
  static final int VALUES_RAW_INTEGERS = 3;

  private final BitWriter out = new BitWriter();
  private final TimestampEncoding ts = new TimestampEncoding();
  private final DecimalEncoding dec = new DecimalEncoding(false);
  private final DecimalEncoding rawInt = new DecimalEncoding(true);

  /** Creates a codec with empty scratch space (grown on demand, never shrunk). */
  public ChunkCodec() {}

  /**
   * Encodes {@code count} samples.
   *
   * @param timestampsMs sample timestamps in milliseconds, {@code [0, count)} used; any longs,
   *     cheapest when ascending on a regular interval
   * @param valueBits raw IEEE-754 bits ({@link Double#doubleToRawLongBits}), {@code [0, count)}
   * @param count number of samples, 1..{@link #MAX_SAMPLES}
   * @return a fresh array owned by the caller
   * @throws IllegalArgumentException if count is out of range or longer than an array
   */
  public byte[] encode(long[] timestampsMs, long[] valueBits, int count) {
    checkArguments(timestampsMs, valueBits, count);
    ts.plan(timestampsMs, count);
    lastPlanned = timestampsMs;
    lastPlannedCount = count;
    return encodePlanned(timestampsMs, valueBits, count);
  }

  /**
   * Encodes {@code count} samples like {@link #encode} but without searching for the smallest
   * value coding: values are stored constant or XORed (Chimp), which costs no planning. Meant for
   * short-lived chunks that are merged and re-encoded with {@link #encode} later (the store's head
   * flushes of a few samples per series); decodes like any chunk.
   *
   * @param timestampsMs timestamps in milliseconds, {@code [0, count)}
   * @param valueBits raw IEEE-754 bits, {@code [0, count)}
   * @param count 1..{@link #MAX_SAMPLES}
   * @return a fresh array owned by the caller
   * @throws IllegalArgumentException if count is out of range or longer than an array
   */
  public byte[] encodeFast(long[] timestampsMs, long[] valueBits, int count) {
    checkArguments(timestampsMs, valueBits, count);
    ts.plan(timestampsMs, count);
    lastPlanned = null;
    boolean constant = true;
    for (int i = 1; i < count && constant; i++) {
      constant = valueBits[i] == valueBits[0];
    }
    return write(timestampsMs, valueBits, count, constant ? VALUES_CONST : VALUES_XOR);
  }

  private static void checkArguments(long[] timestampsMs, long[] valueBits, int count) {
    if (count < 1 || count > MAX_SAMPLES) {
      throw new IllegalArgumentException(
          "chunk of " + count + " samples: must be 1.." + MAX_SAMPLES);
    }
    if (timestampsMs.length < count || valueBits.length < count) {
      throw new IllegalArgumentException(
          "count " + count + " exceeds the arrays: " + timestampsMs.length + " timestamps, "
              + valueBits.length + " values");
    }
  }

  private long[] lastPlanned;
  private int lastPlannedCount;

  /**
   * Encodes {@code count} samples whose timestamps are the very array and count of the previous
   * {@link #encode} call on this instance, unchanged since: the timestamp plan is reused, which
   * saves most of the encoding time of short chunks sharing one time axis (the columns of a
   * rollup block). The bytes equal those {@link #encode} would return.
   *
   * @param timestampsMs the same array as in the previous {@code encode} call, unmodified
   * @param valueBits raw IEEE-754 bits, {@code [0, count)}
   * @param count the same count as in the previous {@code encode} call
   * @return a fresh array owned by the caller
   * @throws IllegalStateException if the array or count differ from the previous call's
   * @throws IllegalArgumentException if {@code valueBits} is shorter than {@code count}
   */
  public byte[] encodeSameTimestamps(long[] timestampsMs, long[] valueBits, int count) {
    if (timestampsMs != lastPlanned || count != lastPlannedCount) {
      throw new IllegalStateException("encodeSameTimestamps needs the timestamps array and count"
          + " of the previous encode call");
    }
    if (valueBits.length < count) {
      throw new IllegalArgumentException(
          "count " + count + " exceeds the values array of " + valueBits.length);
    }
    return encodePlanned(timestampsMs, valueBits, count);
  }

  /**
   * Encodes only the values of {@code count} samples whose time axis is stored elsewhere: the
   * "Values-only column" of FORMAT.md, {@code byte(value kind)} followed by exactly what a chunk
   * holds for its values (value header, then the value codes, padded to a byte). The value kind
   * is chosen as in {@link #encode}. Meant for several columns sharing one time axis (the
   * columns of a rollup block), which would otherwise repeat about 11 bytes of count and
   * timestamp header each.
   *
   * @param valueBits raw IEEE-754 bits, {@code [0, count)}
   * @param count 1..{@link #MAX_SAMPLES}
   * @return a fresh array owned by the caller
   * @throws IllegalArgumentException if count is out of range or longer than the array
   */
  public byte[] encodeValues(long[] valueBits, int count) {
    checkArguments(valueBits, valueBits, count);
    int kind = chooseValueKind(valueBits, count);
    out.reset();
    out.writeByte(kind);
    if (kind == VALUES_CONST) {
      out.writeLong(valueBits[0]);
    } else if (kind == VALUES_DECIMAL) {
      dec.writeHeader(out, valueBits, count);
      dec.writeBits(out, count);
    } else if (kind == VALUES_RAW_INTEGERS) {
      rawInt.writeHeader(out, valueBits, count);
      rawInt.writeBits(out, count);
    } else {
      XorEncoding.encode(valueBits, count, out);
    }
    return out.toByteArray();
  }

  /**
   * Decodes a values-only column written by {@link #encodeValues}.
   *
   * @param src bytes holding the column at {@code [offset, offset + length)}, not modified
   * @param offset first byte of the column
   * @param length bytes of the column, exactly (trailing bytes are corruption)
   * @param valueBitsOut receives {@code count} raw IEEE-754 bits
   * @param count number of values the caller knows the column holds, 1..{@link #MAX_SAMPLES}
   * @throws IllegalArgumentException if the bytes are corrupt, of an unknown value kind, do not
   *     hold exactly {@code count} values, or the output array is shorter than {@code count}
   */
  public static void decodeValues(byte[] src, int offset, int length, long[] valueBitsOut,
      int count) {
    if (count < 1 || count > MAX_SAMPLES || valueBitsOut.length < count) {
      throw new IllegalArgumentException("values-only column of " + count
          + " values: must be 1.." + MAX_SAMPLES + " and fit " + valueBitsOut.length);
    }
    if (offset < 0 || length < 1 || offset + length > src.length) {
      throw BitReader.corrupt("values-only column at " + offset + "+" + length + " outside "
          + src.length + " bytes");
    }
    BitReader r = new BitReader(src, offset, length);
    int kind = r.readByte();
    if (kind == VALUES_CONST) {
      long v = r.readLong();
      for (int i = 0; i < count; i++) {
        valueBitsOut[i] = v;
      }
    } else if (kind == VALUES_DECIMAL || kind == VALUES_RAW_INTEGERS) {
      boolean raw = kind == VALUES_RAW_INTEGERS;
      DecimalEncoding.Header dh = DecimalEncoding.readHeader(r, count, raw);
      DecimalEncoding.readBits(dh, r, valueBitsOut, count);
    } else if (kind == VALUES_XOR) {
      XorEncoding.decode(r, valueBitsOut, count);
    } else {
      throw BitReader.corrupt("value kind " + kind);
    }
    if (r.remainingBytes() != 0) {
      throw BitReader.corrupt(r.remainingBytes() + " bytes after the last value");
    }
  }

  private byte[] encodePlanned(long[] timestampsMs, long[] valueBits, int count) {
    return write(timestampsMs, valueBits, count, chooseValueKind(valueBits, count));
  }

  private byte[] write(long[] timestampsMs, long[] valueBits, int count, int valueKind) {
    out.reset();
    out.writeByte((FORMAT_VERSION << 4) | (ts.kind << 3) | valueKind);
    out.writeVarint(count);
    ts.writeHeader(out);
    if (valueKind == VALUES_CONST) {
      out.writeLong(valueBits[0]);
    } else if (valueKind == VALUES_DECIMAL) {
      dec.writeHeader(out, valueBits, count);
    } else if (valueKind == VALUES_RAW_INTEGERS) {
      rawInt.writeHeader(out, valueBits, count);
    }
    ts.writeBits(out, timestampsMs, count);
    if (valueKind == VALUES_DECIMAL) {
      dec.writeBits(out, count);
    } else if (valueKind == VALUES_RAW_INTEGERS) {
      rawInt.writeBits(out, count);
    } else if (valueKind == VALUES_XOR) {
      XorEncoding.encode(valueBits, count, out);
    }
    return out.toByteArray();
  }

  private int chooseValueKind(long[] vb, int n) {
    boolean constant = true;
    for (int i = 1; i < n && constant; i++) {
      constant = vb[i] == vb[0];
    }
    if (constant) {
      return VALUES_CONST;
    }
    dec.plan(vb, n);
    if (dec.bits >= 0 && dec.exceptions == 0 && dec.bits <= 16L * n) {
      return VALUES_DECIMAL; // at most 2 bytes a value: XOR cannot do better (its best is 2 bits
      // a value only for repeated values, which the decimal deltas code in ~1 bit as well)
    }
    long xor = XorEncoding.encode(vb, n, null);
    rawInt.plan(vb, n);
    int kind = VALUES_XOR;
    long best = xor;
    if (rawInt.bits < best) {
      kind = VALUES_RAW_INTEGERS;
      best = rawInt.bits;
    }
    if (dec.bits >= 0 && dec.bits < best) {
      kind = VALUES_DECIMAL;
    }
    return kind;
  }

  /**
   * @param chunk bytes from {@link #encode}
   * @return the number of samples in it
   * @throws IllegalArgumentException if the header is corrupt or of another format version
   */
  public static int count(byte[] chunk) {
    BitReader r = new BitReader(chunk, 0, chunk.length);
    header(r);
    return readCount(r);
  }

  /**
   * Decodes a chunk into the first {@code count} elements of the two arrays.
   *
   * @param chunk bytes from {@link #encode}, not modified
   * @param timestampsMsOut receives timestamps in milliseconds
   * @param valueBitsOut receives raw IEEE-754 bits
   * @return count, the number of samples decoded
   * @throws IllegalArgumentException if the chunk is corrupt, of another format version, or has
   *     more samples than an output array holds
   */
  public static int decode(byte[] chunk, long[] timestampsMsOut, long[] valueBitsOut) {
    BitReader r = new BitReader(chunk, 0, chunk.length);
    int h = header(r);
    int n = readCount(r);
    if (timestampsMsOut.length < n || valueBitsOut.length < n) {
      throw new IllegalArgumentException(
          "chunk has " + n + " samples, output arrays hold " + timestampsMsOut.length + " and "
              + valueBitsOut.length);
    }
    int tsKind = (h >>> 3) & 1;
    int valueKind = h & 7;
    TimestampEncoding.Header th = new TimestampEncoding.Header();
    TimestampEncoding.readHeader(tsKind, r, th);
    if (valueKind == VALUES_CONST) {
      long v = r.readLong();
      for (int i = 0; i < n; i++) {
        valueBitsOut[i] = v;
      }
      TimestampEncoding.readBits(tsKind, th, r, timestampsMsOut, n);
    } else if (valueKind == VALUES_DECIMAL) {
      DecimalEncoding.Header dh = DecimalEncoding.readHeader(r, n, false);
      TimestampEncoding.readBits(tsKind, th, r, timestampsMsOut, n);
      DecimalEncoding.readBits(dh, r, valueBitsOut, n);
    } else if (valueKind == VALUES_XOR) {
      TimestampEncoding.readBits(tsKind, th, r, timestampsMsOut, n);
      XorEncoding.decode(r, valueBitsOut, n);
    } else if (valueKind == VALUES_RAW_INTEGERS) {
      DecimalEncoding.Header dh = DecimalEncoding.readHeader(r, n, true);
      TimestampEncoding.readBits(tsKind, th, r, timestampsMsOut, n);
      DecimalEncoding.readBits(dh, r, valueBitsOut, n);
    } else {
      throw BitReader.corrupt("value kind " + valueKind);
    }
    if (r.remainingBytes() != 0) {
      throw BitReader.corrupt(r.remainingBytes() + " bytes after the last sample");
    }
    return n;
  }

  private static int header(BitReader r) {
    int h = r.readByte();
    if (h >>> 4 != FORMAT_VERSION) {
      throw new IllegalArgumentException(
          "chunk format version " + (h >>> 4) + " is not supported (this build reads "
              + FORMAT_VERSION + ")");
    }
    return h;
  }

  private static int readCount(BitReader r) {
    long n = r.readVarint();
    if (n < 1 || n > MAX_SAMPLES) {
      throw BitReader.corrupt("sample count " + n + " outside 1.." + MAX_SAMPLES);
    }
    return (int) n;
  }
}
