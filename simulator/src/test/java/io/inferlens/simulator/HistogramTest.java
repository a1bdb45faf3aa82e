package io.inferlens.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class HistogramTest {

  @Test
  void cumulativeAtASubsetEqualsAHistogramWithThoseBounds() {
    double[] fine = {0.1, 0.2, 0.5, 1, 2, 5};
    double[] coarse = {0.2, 1, 5};
    Histogram a = new Histogram(fine);
    Histogram b = new Histogram(coarse);
    double[] obs = {0.05, 0.1, 0.15, 0.2, 0.7, 1.0, 3, 5, 9, 0.3};
    for (double v : obs) {
      a.observe(v, 2);
      b.observe(v, 2);
    }
    assertThat(a.cumulativeAt(coarse)).containsExactly(b.cumulative());
    assertThat(a.cumulativeAt(fine)).containsExactly(a.cumulative());
    assertThat(a.cumulativeAt(new double[0])).containsExactly(20);
  }

  @Test
  void cumulativeAtRefusesABoundItDoesNotHave() {
    Histogram h = new Histogram(new double[] {1, 2});
    assertThatThrownBy(() -> h.cumulativeAt(new double[] {1.5}))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1.5");
  }

  @Test
  void unionBoundsHoldEveryStacksBounds() {
    for (double[][] pair : new double[][][] {{Buckets.TTFT, Buckets.V0_TTFT},
        {Buckets.TTFT, Buckets.SGLANG_TTFT}, {Buckets.E2E, Buckets.TGI_DURATION},
        {Buckets.E2E, Buckets.HTTP_HIGHR}, {Buckets.QUEUE, Buckets.SGLANG_QUEUE},
        {Buckets.ITERATION, Buckets.V0_ITERATION}, {Buckets.PROMPT, Buckets.TGI_INPUT}}) {
      new Histogram(pair[0]).cumulativeAt(pair[1]); // throws if a bound is missing
    }
    assertThat(Buckets.TGI_DURATION).hasSize(35);
    assertThat(Buckets.TGI_DURATION[0]).isEqualTo(0.00015000000000000001);
  }
}
