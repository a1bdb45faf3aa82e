package io.inferlens.storage.chunk;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link Bits} against a one-bit-at-a-time model of the MSB-first layout. */
class BitsTest {

  @Test
  void putThenGetRoundTripsEveryWidthAndOffset() {
    Random rnd = new Random(7);
    for (int round = 0; round < 2000; round++) {
      byte[] buf = new byte[64];
      byte[] model = new byte[64];
      long pos = 0;
      long[] vs = new long[40];
      int[] ns = new int[40];
      int k = 0;
      while (k < vs.length) {
        int n = 1 + rnd.nextInt(64);
        if (pos + n > 8L * buf.length) {
          break;
        }
        long v = rnd.nextLong();
        Bits.put(buf, pos, v, n);
        for (int b = 0; b < n; b++) { // bit n-1-b of v to stream bit pos+b
          if (((v >>> (n - 1 - b)) & 1) != 0) {
            long p = pos + b;
            model[(int) (p >>> 3)] |= (byte) (0x80 >>> (p & 7));
          }
        }
        vs[k] = n == 64 ? v : v & ((1L << n) - 1);
        ns[k++] = n;
        pos += n;
      }
      assertThat(buf).isEqualTo(model);
      long at = 0;
      for (int i = 0; i < k; i++) {
        assertThat(Bits.get(buf, at, ns[i])).isEqualTo(vs[i]);
        at += ns[i];
      }
    }
  }
}
