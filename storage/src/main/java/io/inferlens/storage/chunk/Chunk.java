package io.inferlens.storage.chunk;

import java.util.NoSuchElementException;

/**
 * One encoded chunk of one series: the bytes of {@link ChunkCodec} plus the time range and count
 * a store keeps beside them (in a key or an index) to skip chunks without decoding them.
 *
 * <p>Immutable and thread safe as long as nobody modifies the array passed to {@link #wrap} or
 * returned by {@link #bytes()} (which is not copied, to avoid a copy per chunk on the read path).
 */
public final class Chunk {

  private final long minTimeMs;
  private final long maxTimeMs;
  private final int count;
  private final byte[] bytes;

  private Chunk(long minTimeMs, long maxTimeMs, int count, byte[] bytes) {
    this.minTimeMs = minTimeMs;
    this.maxTimeMs = maxTimeMs;
    this.count = count;
    this.bytes = bytes;
  }

  /**
   * Encodes samples into a chunk.
   *
   * @param codec the calling thread's codec
   * @param timestampsMs timestamps in milliseconds, {@code [0, count)} used
   * @param valueBits raw IEEE-754 bits, {@code [0, count)} used
   * @param count 1..{@link ChunkCodec#MAX_SAMPLES}
   * @return the chunk; min and max are over all timestamps, sorted or not
   */
  public static Chunk encode(ChunkCodec codec, long[] timestampsMs, long[] valueBits, int count) {
    byte[] b = codec.encode(timestampsMs, valueBits, count);
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    for (int i = 0; i < count; i++) {
      min = Math.min(min, timestampsMs[i]);
      max = Math.max(max, timestampsMs[i]);
    }
    return new Chunk(min, max, count, b);
  }

  /**
   * Wraps stored bytes, decoding them once to validate them and find the time range.
   *
   * @param bytes chunk bytes from {@link ChunkCodec#encode}, not copied
   * @throws IllegalArgumentException if they are corrupt or of another format version
   */
  public static Chunk wrap(byte[] bytes) {
    int n = ChunkCodec.count(bytes);
    long[] t = new long[n];
    long[] v = new long[n];
    ChunkCodec.decode(bytes, t, v);
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    for (long x : t) {
      min = Math.min(min, x);
      max = Math.max(max, x);
    }
    return new Chunk(min, max, n, bytes);
  }

  /** @return the smallest timestamp in the chunk, milliseconds */
  public long minTimeMs() {
    return minTimeMs;
  }

  /** @return the largest timestamp in the chunk, milliseconds */
  public long maxTimeMs() {
    return maxTimeMs;
  }

  /** @return the number of samples, 1..{@link ChunkCodec#MAX_SAMPLES} */
  public int count() {
    return count;
  }

  /** @return the encoded bytes, not a copy: do not modify */
  public byte[] bytes() {
    return bytes;
  }

  /** @return the encoded size in bytes */
  public int sizeBytes() {
    return bytes.length;
  }

  /**
   * Decodes into the first {@link #count()} elements of the arrays.
   *
   * @return the number of samples decoded
   */
  public int decodeInto(long[] timestampsMsOut, long[] valueBitsOut) {
    return ChunkCodec.decode(bytes, timestampsMsOut, valueBitsOut);
  }

  /** @return a new cursor over the samples in stored order; decodes the chunk once, eagerly */
  public Cursor cursor() {
    long[] t = new long[count];
    long[] v = new long[count];
    ChunkCodec.decode(bytes, t, v);
    return new Cursor(t, v);
  }

  /**
   * Cursor over the samples of a chunk: {@code while (it.next()) use(it.timestampMs(),
   * it.valueBits())}. Not thread safe.
   */
  public static final class Cursor {
    private final long[] t;
    private final long[] v;
    private int i = -1;

    private Cursor(long[] t, long[] v) {
      this.t = t;
      this.v = v;
    }

    /** @return whether there is a current sample after advancing */
    public boolean next() {
      if (i < t.length) {
        i++;
      }
      return i < t.length;
    }

    /** @return the current sample's timestamp, milliseconds */
    public long timestampMs() {
      check();
      return t[i];
    }

    /** @return the current sample's raw IEEE-754 bits */
    public long valueBits() {
      check();
      return v[i];
    }

    /** @return the current sample's value */
    public double value() {
      return Double.longBitsToDouble(valueBits());
    }

    private void check() {
      if (i < 0 || i >= t.length) {
        throw new NoSuchElementException("cursor is not on a sample: call next() first");
      }
    }
  }

  @Override
  public String toString() {
    return "Chunk[" + count + " samples, " + minTimeMs + ".." + maxTimeMs + " ms, "
        + bytes.length + " bytes]";
  }
}
