package io.inferlens.storage.chunk;

/**
 * Writing and reading {@code n} bits, most significant first, at a bit position of a byte array:
 * bit {@code p} is bit {@code 7 - (p & 7)} of byte {@code p >>> 3}. {@link BitReader} and the
 * head's stream ({@code HeadBuffer}) read with {@link #get}, and the head writes with {@link #put},
 * so chunk codecs and head buffers share one bit layout and one reader. Static methods over the
 * caller's array, not an object, so a head buffer per series needs no extra object.
 *
 * <p>{@link BitWriter} keeps its own 64-bit accumulator for now: storing through {@link #put} (per
 * write, or per drained byte run) measured 6-13 % slower on ChunkCodecBenchmark.encode, on a
 * machine too loaded to tell that from noise (identical classes measured up to 12 % apart).
 *
 * <p>No bounds or argument checks beyond the JVM's array checks: callers check their own ends
 * (a reader of untrusted bytes before it reads, a writer when it grows its array), once per
 * call, not again in here.
 */
public final class Bits {

  private Bits() {}

  /**
   * Writes the low {@code n} bits of {@code v} at bit {@code bitPos}, the most significant first,
   * by OR-ing them in: bits of {@code buf} at and after {@code bitPos} must be zero (a fresh or
   * zero-filled array). Bits before {@code bitPos} are untouched; bits of {@code v} above the low
   * {@code n} are ignored.
   *
   * @param buf the stream; at least {@code (bitPos + n + 7) >>> 3} bytes long
   * @param bitPos where the first bit goes, 0 ≤ bitPos &lt; 2^34 (a byte index that fits an int)
   * @param v the bits, in its low {@code n} bits
   * @param n how many bits, 1..64
   * @throws ArrayIndexOutOfBoundsException if {@code buf} is too short
   */
  public static void put(byte[] buf, long bitPos, long v, int n) {
    if (n < 64) {
      v &= (1L << n) - 1;
    }
    int i = (int) (bitPos >>> 3);
    int room = 8 - ((int) bitPos & 7);
    if (n <= room) {
      buf[i] |= (byte) (v << (room - n));
      return;
    }
    // Whole bytes after the first partial one, one store each (not one per partial byte): the
    // 20-50-bit XOR payloads are most of the writers' time.
    n -= room;
    buf[i++] |= (byte) (v >>> n);
    while (n >= 8) {
      n -= 8;
      buf[i++] = (byte) (v >>> n);
    }
    if (n > 0) {
      buf[i] = (byte) (v << (8 - n));
    }
  }

  /**
   * Reads {@code n} bits at bit {@code bitPos}, the first read the most significant. Touches only
   * the bytes that hold those bits, so the caller's end check ({@code bitPos + n} at most its end)
   * is all the bounds checking needed.
   *
   * @param buf the stream; at least {@code (bitPos + n + 7) >>> 3} bytes long
   * @param bitPos where the first bit is, 0 ≤ bitPos &lt; 2^34
   * @param n how many bits, 1..64
   * @return the bits, in the low {@code n} bits, the rest zero
   * @throws ArrayIndexOutOfBoundsException if {@code buf} is too short
   */
  public static long get(byte[] buf, long bitPos, int n) {
    int i = (int) (bitPos >>> 3);
    int avail = 8 - ((int) bitPos & 7);
    long v = buf[i] & ((1 << avail) - 1);
    if (n <= avail) {
      return v >>> (avail - n);
    }
    n -= avail;
    while (n >= 8) {
      v = (v << 8) | (buf[++i] & 0xff);
      n -= 8;
    }
    if (n > 0) {
      v = (v << n) | ((buf[i + 1] & 0xff) >>> (8 - n));
    }
    return v;
  }
}
