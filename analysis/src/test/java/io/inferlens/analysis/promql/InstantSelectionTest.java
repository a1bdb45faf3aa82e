package io.inferlens.analysis.promql;

import static io.inferlens.analysis.promql.TestSeries.S;
import static org.assertj.core.api.Assertions.assertThat;

import io.inferlens.storage.Series;
import org.junit.jupiter.api.Test;

class InstantSelectionTest {

  @Test
  void picksTheNewestSampleWithinFiveMinutesInclusive() {
    Series g = TestSeries.of(0, 1, 15, 2, 30, 3);
    StepSeries r = InstantSelection.select(g,
        new StepRange(-5 * S, 335 * S, 5 * S));
    assertThat(r.value(0)).isNaN(); // before the first sample
    assertThat(r.value(1)).isEqualTo(1); // t = 0
    assertThat(r.value(4)).isEqualTo(2); // t = 15
    assertThat(r.value(6)).isEqualTo(2); // t = 25
    assertThat(r.value(67)).isEqualTo(3); // t = 330 = 30 + 5m: still inside in Prometheus 2.x
    assertThat(r.value(68)).isNaN(); // t = 335
  }

  @Test
  void staleMarkerEndsTheSeriesUntilTheNextSample() {
    Series g = TestSeries.withStaleAt(TestSeries.of(0, 1, 15, 2, 30, 0, 90, 4), 2);
    StepSeries r = InstantSelection.select(g, new StepRange(15 * S, 90 * S, 15 * S));
    // t = 15, 30, 45, 60, 75, 90
    assertThat(r.values()).containsExactly(2, Double.NaN, Double.NaN, Double.NaN, Double.NaN, 4);
  }

  @Test
  void ordinaryNaNIsAValue() {
    Series g = TestSeries.of(0, Double.NaN, 15, 2);
    assertThat(InstantSelection.select(g, StepRange.instant(10 * S)).value(0)).isNaN();
    assertThat(Double.doubleToRawLongBits(Double.NaN)).isNotEqualTo(StaleMarker.BITS);
  }

  @Test
  void customLookback() {
    Series g = TestSeries.of(0, 1);
    assertThat(InstantSelection.select(g, StepRange.instant(60 * S), 60 * S).value(0)).isEqualTo(1);
    assertThat(InstantSelection.select(g, StepRange.instant(61 * S), 60 * S).value(0)).isNaN();
  }
}
