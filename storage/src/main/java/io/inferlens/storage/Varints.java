package io.inferlens.storage;

import java.io.ByteArrayOutputStream;

/**
 * Unsigned LEB128 varints (7 bits a byte, least significant group first, the high bit set on
 * every byte but the last; protobuf's encoding), as the head log, rollup blocks and metadata
 * values store lengths and counts (storage/FORMAT.md).
 */
public final class Varints {

  private Varints() {}

  /**
   * Appends {@code v} as a varint.
   *
   * @param out the buffer
   * @param v the value, read as unsigned 64 bits
   */
  public static void put(ByteArrayOutputStream out, long v) {
    while ((v & ~0x7FL) != 0) {
      out.write((int) ((v & 0x7F) | 0x80));
      v >>>= 7;
    }
    out.write((int) v);
  }

  /**
   * Reads a varint at {@code pos[0]} and advances it.
   *
   * @param b the bytes
   * @param pos the read position, one element, updated past the varint
   * @param what what is being read, for the error ("head-log record", "rollup block")
   * @return the value, unsigned 64 bits
   * @throws IllegalStateException "corrupt WHAT: …" if the bytes end inside the varint or it is
   *     longer than 10 bytes
   */
  public static long get(byte[] b, int[] pos, String what) {
    long v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos[0] >= b.length) {
        throw new IllegalStateException("corrupt " + what + ": truncated varint at byte "
            + pos[0]);
      }
      byte x = b[pos[0]++];
      v |= (long) (x & 0x7F) << shift;
      if (x >= 0) {
        return v;
      }
    }
    throw new IllegalStateException("corrupt " + what + ": varint longer than 10 bytes");
  }
}
