package io.inferlens.storage.chunk;

import java.util.Arrays;

/**
 * Appends bits most significant first to a growable byte buffer, plus byte-aligned varints for
 * chunk headers.
 *
 * <p>Reused across chunks with {@link #reset()}; not thread safe. The buffer returned by {@link
 * #toByteArray()} is a fresh copy owned by the caller.
 */
final class BitWriter {

  private byte[] buf = new byte[256];
  private int pos; // whole bytes written
  private long acc; // pending bits, the low accBits bits, the oldest bit highest
  private int accBits; // 0..7 between calls

  void reset() {
    pos = 0;
    acc = 0;
    accBits = 0;
  }

  /** Total bits written so far, padding excluded. */
  long bitCount() {
    return 8L * pos + accBits;
  }

  /**
   * Writes the low {@code n} bits of {@code v}, the most significant of them first.
   *
   * @param n 0..64
   */
  void writeBits(long v, int n) {
    if (n > 32) {
      writeBits32(v >>> 32, n - 32);
      writeBits32(v & 0xFFFF_FFFFL, 32);
    } else {
      writeBits32(v, n);
    }
  }

  private void writeBits32(long v, int n) {
    // accBits <= 7 and n <= 32, so at most 39 bits are pending: no overflow of the long. Kept
    // small (n == 0 changes nothing) so that it inlines into the encoders' loops under the C2
    // inlining limits of the README's command; whole bytes go out in drain().
    acc = (acc << n) | (v & ((1L << n) - 1));
    accBits += n;
    if (accBits >= 8) {
      drain();
    }
  }

  /** Writes out the whole bytes of the pending bits, keeping the last 0..7 bits pending. */
  private void drain() {
    ensure(5);
    while (accBits >= 8) {
      accBits -= 8;
      buf[pos++] = (byte) (acc >>> accBits);
    }
    acc &= (1L << accBits) - 1;
  }

  void writeBit(boolean one) {
    writeBits32(one ? 1 : 0, 1);
  }

  /** Rice quotient from which a value is escaped: 16 one-bits, 6 bits length - 1, the bits. */
  static final int RICE_ESCAPE = 16;

  /**
   * Golomb-Rice code of {@code z} (unsigned) with parameter {@code k} (Rice, 1979): {@code q = z
   * >>> k} as q one-bits and a zero-bit, then the low k bits of z. A quotient of {@link
   * #RICE_ESCAPE} or more is escaped: 16 one-bits, 6 bits {@code L - 1} where {@code L} is the bit
   * length of z, then the low {@code L - 1} bits of z (its top bit is implied).
   */
  void writeRice(long z, int k) {
    long q = z >>> k; // unsigned: negative when k == 0 and z >= 2^63, then escaped
    if (q >= 0 && q < RICE_ESCAPE) {
      writeBits32(((1L << q) - 1) << 1, (int) q + 1);
      writeBits(z, k);
    } else {
      int len = 64 - Long.numberOfLeadingZeros(z);
      writeBits32(((1L << RICE_ESCAPE) - 1) << 6 | (len - 1), RICE_ESCAPE + 6);
      writeBits(z, len - 1);
    }
  }

  /** Bits {@link #writeRice} writes for {@code z} with parameter {@code k}. */
  static int riceBits(long z, int k) {
    long q = z >>> k;
    return q >= 0 && q < RICE_ESCAPE
        ? (int) q + 1 + k
        : RICE_ESCAPE + 6 + 63 - Long.numberOfLeadingZeros(z);
  }

  /** Must be byte aligned (headers precede the bit stream). */
  void writeByte(int b) {
    assertAligned();
    ensure(1);
    buf[pos++] = (byte) b;
  }

  /** Unsigned LEB128, byte aligned. */
  void writeVarint(long v) {
    assertAligned();
    ensure(10);
    while ((v & ~0x7FL) != 0) {
      buf[pos++] = (byte) ((v & 0x7F) | 0x80);
      v >>>= 7;
    }
    buf[pos++] = (byte) v;
  }

  /** Zigzag then unsigned LEB128, byte aligned. */
  void writeSignedVarint(long v) {
    writeVarint(zigzag(v));
  }

  /** 8 bytes big-endian, byte aligned. */
  void writeLong(long v) {
    assertAligned();
    ensure(8);
    for (int i = 56; i >= 0; i -= 8) {
      buf[pos++] = (byte) (v >>> i);
    }
  }

  /** Pads the last byte with zero bits and returns a copy of the bytes written. */
  byte[] toByteArray() {
    if (accBits > 0) {
      ensure(1);
      buf[pos++] = (byte) (acc << (8 - accBits));
      acc = 0;
      accBits = 0;
    }
    return Arrays.copyOf(buf, pos);
  }

  static long zigzag(long v) {
    return (v << 1) ^ (v >> 63);
  }

  private void assertAligned() {
    if (accBits != 0) {
      throw new IllegalStateException("bug: byte-aligned write after " + accBits + " loose bits");
    }
  }

  private void ensure(int more) {
    if (pos + more > buf.length) {
      buf = Arrays.copyOf(buf, Math.max(buf.length * 2, pos + more));
    }
  }
}
