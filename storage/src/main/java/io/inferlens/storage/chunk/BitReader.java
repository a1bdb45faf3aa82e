package io.inferlens.storage.chunk;

/**
 * Reads what {@link BitWriter} wrote: byte-aligned varints for the headers, then bits most
 * significant first. Every read past the end throws {@link IllegalArgumentException} ("corrupt
 * chunk"), so a truncated or damaged chunk never yields garbage silently.
 *
 * <p>A view of the caller's array, which must not change while it is read; not thread safe.
 */
final class BitReader {

  private final byte[] src;
  private final int end;
  private long bitPos;

  BitReader(byte[] src, int offset, int length) {
    this.src = src;
    this.end = offset + length;
    this.bitPos = 8L * offset;
  }

  /** Reads {@code n} bits, 0..64, the first read the most significant. */
  long readBits(int n) {
    if (n == 0) {
      return 0;
    }
    if (bitPos + n > 8L * end) {
      throw corrupt("bit stream ends early");
    }
    long v = Bits.get(src, bitPos, n);
    bitPos += n;
    return v;
  }

  boolean readBit() {
    return readBits(1) != 0;
  }

  /** Counts one-bits up to the first zero-bit (consumed) or up to {@code max} ones. */
  int readUnary(int max) {
    int q = 0;
    while (q < max && readBits(1) != 0) {
      q++;
    }
    return q;
  }

  /** Reads what {@link BitWriter#writeRice} wrote. */
  long readRice(int k) {
    int q = readUnary(BitWriter.RICE_ESCAPE);
    if (q < BitWriter.RICE_ESCAPE) {
      return ((long) q << k) | readBits(k);
    }
    int len = (int) readBits(6) + 1;
    return (1L << (len - 1)) | readBits(len - 1);
  }

  int readByte() {
    aligned();
    int i = (int) (bitPos >>> 3);
    if (i >= end) {
      throw corrupt("header ends early");
    }
    bitPos += 8;
    return src[i] & 0xFF;
  }

  long readVarint() {
    long v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      int b = readByte();
      v |= (long) (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        return v;
      }
    }
    throw corrupt("varint longer than 10 bytes");
  }

  long readSignedVarint() {
    return unzigzag(readVarint());
  }

  long readLong() {
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = (v << 8) | readByte();
    }
    return v;
  }

  /** Bytes not yet consumed, rounding a partly read byte up as consumed. */
  int remainingBytes() {
    return end - (int) ((bitPos + 7) >>> 3);
  }

  static long unzigzag(long z) {
    return (z >>> 1) ^ -(z & 1);
  }

  private void aligned() {
    if ((bitPos & 7) != 0) {
      throw new IllegalStateException("bug: byte-aligned read inside the bit stream");
    }
  }

  static IllegalArgumentException corrupt(String what) {
    return new IllegalArgumentException("corrupt chunk: " + what);
  }
}
