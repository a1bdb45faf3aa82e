package io.inferlens.analysis.promql;

import static io.inferlens.analysis.promql.TestSeries.S;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.inferlens.analysis.promql.HistogramQuantile.Bucket;
import io.inferlens.storage.LabelSet;
import io.inferlens.storage.Series;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class HistogramQuantileTest {

  static final double INF = Double.POSITIVE_INFINITY;

  static List<Bucket> buckets(double... leAndCount) {
    List<Bucket> out = new ArrayList<>();
    for (int i = 0; i < leAndCount.length; i += 2) {
      out.add(new Bucket(leAndCount[i], leAndCount[i + 1]));
    }
    return out;
  }

  @Test
  void interpolatesLinearlyInsideTheBucket() {
    // rank 50 falls in (0.5, 1]: 20 of its 60 observations, so 0.5 + 0.5 * 20/60.
    List<Bucket> b = buckets(0.1, 10, 0.5, 30, 1, 90, INF, 100);
    assertThat(HistogramQuantile.quantile(0.5, b)).isCloseTo(0.5 + 0.5 / 3, within(1e-15));
  }

  @Test
  void quantileInInfBucketReturnsHighestFiniteBound() {
    List<Bucket> b = buckets(0.1, 0, 0.5, 0, 1, 10, INF, 100);
    assertThat(HistogramQuantile.quantile(0.95, b)).isEqualTo(1.0);
  }

  @Test
  void quantileInFirstBucketInterpolatesFromZero() {
    List<Bucket> b = buckets(0.1, 50, 0.5, 80, 1, 90, INF, 100);
    assertThat(HistogramQuantile.quantile(0.3, b)).isCloseTo(0.06, within(1e-15));
  }

  @Test
  void firstBucketWithNonPositiveBoundReturnsTheBound() {
    List<Bucket> b = buckets(-1, 50, 1, 80, INF, 100);
    assertThat(HistogramQuantile.quantile(0.3, b)).isEqualTo(-1.0);
  }

  @Test
  void noObservationsGiveNaN() {
    assertThat(HistogramQuantile.quantile(0.5, buckets(0.1, 0, 1, 0, INF, 0))).isNaN();
  }

  @Test
  void missingInfBucketOrTooFewBucketsGiveNaN() {
    assertThat(HistogramQuantile.quantile(0.5, buckets(0.1, 1, 1, 2))).isNaN();
    assertThat(HistogramQuantile.quantile(0.5, buckets(INF, 5))).isNaN();
    assertThat(HistogramQuantile.quantile(0.5, buckets())).isNaN();
  }

  @Test
  void nonMonotonicCountsAreRaised() {
    // 0.5 has fewer than 0.1 (a torn scrape): counts become 10, 10, 20, 20.
    List<Bucket> b = buckets(0.1, 10, 0.5, 8, 1, 20, INF, 20);
    assertThat(HistogramQuantile.quantile(0.5, b)).isCloseTo(0.1, within(1e-15));
    assertThat(HistogramQuantile.quantile(0.75, b)).isCloseTo(0.75, within(1e-15));
  }

  @Test
  void unsortedAndDuplicateBoundsAreSortedAndMerged() {
    List<Bucket> b = buckets(INF, 100, 1, 50, 0.1, 10, 1, 40, 0.5, 30);
    // -> 0.1:10, 0.5:30, 1:90, +Inf:100, as in interpolatesLinearlyInsideTheBucket
    assertThat(HistogramQuantile.quantile(0.5, b)).isCloseTo(0.5 + 0.5 / 3, within(1e-15));
    assertThat(b.get(0).upperBound()).isEqualTo(INF); // input untouched
  }

  @Test
  void quantileOutsideZeroOneIsInfiniteAndNaNStaysNaN() {
    List<Bucket> b = buckets(1, 1, INF, 2);
    assertThat(HistogramQuantile.quantile(-0.1, b)).isEqualTo(Double.NEGATIVE_INFINITY);
    assertThat(HistogramQuantile.quantile(1.1, b)).isEqualTo(INF);
    assertThat(HistogramQuantile.quantile(Double.NaN, b)).isNaN();
  }

  @Test
  void parsesLeLikeGo() {
    assertThat(HistogramQuantile.parseUpperBound("+Inf")).hasValue(INF);
    assertThat(HistogramQuantile.parseUpperBound("inf")).hasValue(INF);
    assertThat(HistogramQuantile.parseUpperBound("-Inf")).hasValue(Double.NEGATIVE_INFINITY);
    assertThat(HistogramQuantile.parseUpperBound("0.25")).hasValue(0.25);
    assertThat(HistogramQuantile.parseUpperBound("1e-3")).hasValue(0.001);
    assertThat(HistogramQuantile.parseUpperBound("0x1p-2")).hasValue(0.25);
    assertThat(HistogramQuantile.parseUpperBound("")).isEmpty();
    assertThat(HistogramQuantile.parseUpperBound("1d")).isEmpty();
    assertThat(HistogramQuantile.parseUpperBound(" 1")).isEmpty();
    assertThat(HistogramQuantile.parseUpperBound("abc")).isEmpty();
  }
}
