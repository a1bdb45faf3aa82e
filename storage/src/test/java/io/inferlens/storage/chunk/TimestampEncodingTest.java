package io.inferlens.storage.chunk;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link TimestampEncoding#majorityIndex} against counting on a sorted copy. */
class TimestampEncodingTest {

  @Test
  void majorityIndexFindsTheValueHeldByMoreThanHalfOrNone() {
    Random random = new Random(7);
    long[] a = new long[64];
    for (int round = 0; round < 20_000; round++) {
      int from = random.nextInt(4);
      int to = from + 1 + random.nextInt(a.length - from - 1);
      int distinct = 1 + random.nextInt(4);
      long majorityBias = random.nextInt(3); // 0: uniform, else skewed towards 15000
      for (int i = 0; i < a.length; i++) {
        boolean skewed = majorityBias > 0 && random.nextInt(4) != 0;
        a[i] = skewed ? 15_000 : 14_990 + random.nextInt(distinct);
      }
      long[] sorted = Arrays.copyOfRange(a, from, to);
      Arrays.sort(sorted);
      int m = sorted.length;
      long median = sorted[m / 2];
      int medianCount = 0;
      for (long v : sorted) {
        medianCount += v == median ? 1 : 0;
      }
      int got = TimestampEncoding.majorityIndex(a, from, to);
      if (2 * medianCount > m) {
        assertThat(got).as("round %d", round).isBetween(from, to - 1);
        assertThat(a[got]).isEqualTo(median);
      } else {
        assertThat(got).as("round %d", round).isEqualTo(-1);
      }
    }
  }

  @Test
  void exactHalfIsNoMajority() {
    long[] a = {1, 2, 1, 2};
    assertThat(TimestampEncoding.majorityIndex(a, 0, 4)).isEqualTo(-1);
    assertThat(TimestampEncoding.majorityIndex(a, 0, 3)).isIn(0, 2);
    assertThat(TimestampEncoding.majorityIndex(new long[] {9}, 0, 1)).isEqualTo(0);
  }
}
