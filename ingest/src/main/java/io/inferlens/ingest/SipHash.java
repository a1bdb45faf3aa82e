package io.inferlens.ingest;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * SipHash with 128-bit output (J.-P. Aumasson, D. J. Bernstein, "SipHash: a fast short-input
 * PRF", INDOCRYPT 2012; the 128-bit variant as in the authors' reference implementation,
 * github.com/veorq/SipHash): a keyed pseudorandom function of a byte string. Without the 128-bit
 * key its outputs cannot be predicted, so colliding inputs cannot be crafted.
 *
 * <p>Two round counts: {@link #hash128x24 SipHash-2-4}, the paper's recommended conservative
 * choice, checked against the reference implementation's official vectors; and
 * {@link #hash128x13 SipHash-1-3} (one compression round per 8-byte word, three finalization
 * rounds), the same function with fewer rounds (its rounds written out), which Rust's standard
 * hash maps and Python's string hashing use against hash flooding, about half the work per word.
 * Both have the same 128-bit key and output conventions.
 *
 * <p>Keys and outputs are little-endian: key bytes 0–7 are {@code k0}, bytes 8–15 {@code k1};
 * output bytes 0–7 are {@code out[0]}, bytes 8–15 {@code out[1]}, as the reference
 * implementation writes them.
 *
 * <p>Thread safety: stateless; thread safe.
 */
final class SipHash {

  private static final VarHandle LONG_LE =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private SipHash() {}

  /**
   * SipHash-2-4, 128-bit output.
   *
   * @param k0 key bytes 0–7, little-endian
   * @param k1 key bytes 8–15, little-endian
   * @param buf source bytes
   * @param off start of the message in {@code buf}
   * @param len message length in bytes, ≥ 0
   * @param out receives the 128-bit output: {@code out[0]} its bytes 0–7, {@code out[1]} its
   *     bytes 8–15, little-endian
   */
  static void hash128x24(long k0, long k1, byte[] buf, int off, int len, long[] out) {
    hash128(2, 4, k0, k1, buf, off, len, out);
  }

  /**
   * SipHash-1-3, 128-bit output; parameters as {@link #hash128x24}. The same function as
   * {@link #hash128}{@code (1, 3, ...)}, with its rounds written out: under the README's C2
   * inlining limits the generic method is compiled on its own and runs its round loops with a
   * counter, which made this, the label-set cache's hash, take about 40 % longer (SipHashBenchmark,
   * 318-byte key: 116 against 83 ns; docs/BENCHMARKS.md, eighth pass).
   *
   * @param k0 key bytes 0–7, little-endian
   * @param k1 key bytes 8–15, little-endian
   * @param buf source bytes
   * @param off start of the message in {@code buf}
   * @param len message length in bytes, ≥ 0
   * @param out receives the 128-bit output, as {@link #hash128x24}
   */
  static void hash128x13(long k0, long k1, byte[] buf, int off, int len, long[] out) {
    long v0 = 0x736f6d6570736575L ^ k0;
    long v1 = 0x646f72616e646f6dL ^ k1 ^ 0xee;
    long v2 = 0x6c7967656e657261L ^ k0;
    long v3 = 0x7465646279746573L ^ k1;
    int end = off + len;
    int i = off;
    for (; i + Long.BYTES <= end; i += Long.BYTES) {
      long m = (long) LONG_LE.get(buf, i);
      v3 ^= m;
      v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
      v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
      v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
      v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
      v0 ^= m;
    }
    long m = (long) len << 56;
    for (int shift = 0; i < end; i++, shift += 8) {
      m |= (buf[i] & 0xffL) << shift;
    }
    v3 ^= m;
    v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
    v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
    v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
    v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
    v0 ^= m;
    v2 ^= 0xee;
    for (int r = 0; r < 2; r++) {
      // 3 finalization rounds per output word, unrolled by hand (the block below and this loop)
      v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
      v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
      v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
      v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
      v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
      v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
      v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
      v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
      v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
      v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
      v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
      v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
      out[r] = v0 ^ v1 ^ v2 ^ v3;
      v1 ^= 0xdd;
    }
  }

  /**
   * SipHash-c-d: {@code c} SipRounds per message word, {@code d} per output word; behind
   * {@link #hash128x24}, and the reference {@link #hash128x13} is tested against.
   *
   * @param c compression rounds per message word, ≥ 1
   * @param d finalization rounds per output word, ≥ 1
   * @param k0 key bytes 0–7, little-endian
   * @param k1 key bytes 8–15, little-endian
   * @param buf source bytes
   * @param off start of the message in {@code buf}
   * @param len message length in bytes, ≥ 0
   * @param out receives the 128-bit output, as {@link #hash128x24}
   */
  static void hash128(int c, int d, long k0, long k1, byte[] buf, int off, int len,
      long[] out) {
    long v0 = 0x736f6d6570736575L ^ k0;
    long v1 = 0x646f72616e646f6dL ^ k1 ^ 0xee; // 0xee: 128-bit output
    long v2 = 0x6c7967656e657261L ^ k0;
    long v3 = 0x7465646279746573L ^ k1;
    int end = off + len;
    int i = off;
    for (; i + Long.BYTES <= end; i += Long.BYTES) {
      long m = (long) LONG_LE.get(buf, i);
      v3 ^= m;
      for (int r = 0; r < c; r++) {
        v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
        v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
        v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
        v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
      }
      v0 ^= m;
    }
    // Last word: the 0–7 remaining bytes, and the length's low byte in the top byte.
    long m = (long) len << 56;
    for (int shift = 0; i < end; i++, shift += 8) {
      m |= (buf[i] & 0xffL) << shift;
    }
    v3 ^= m;
    for (int r = 0; r < c; r++) {
      v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
      v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
      v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
      v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
    }
    v0 ^= m;
    v2 ^= 0xee;
    for (int r = 0; r < d; r++) {
      v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
      v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
      v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
      v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
    }
    out[0] = v0 ^ v1 ^ v2 ^ v3;
    v1 ^= 0xdd;
    for (int r = 0; r < d; r++) {
      v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
      v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
      v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
      v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
    }
    out[1] = v0 ^ v1 ^ v2 ^ v3;
  }
}
