package io.inferlens.analysis.promql;

import static io.inferlens.analysis.promql.TestSeries.S;
import static io.inferlens.analysis.promql.TestSeries.at;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.inferlens.storage.Series;
import org.junit.jupiter.api.Test;

/**
 * Hand-computed cases of Prometheus 2.42 {@code extrapolatedRate} and the over-time functions. All
 * windows are 300 s evaluated at t = 300 s, i.e. [0 s, 300 s], unless a test says otherwise.
 */
class RangeFunctionsTest {

  static final long RANGE = 300 * S;

  static double rate(Series s) {
    return RangeFunctions.rate(s, RANGE, at(300)).value(0);
  }

  static double increase(Series s) {
    return RangeFunctions.increase(s, RANGE, at(300)).value(0);
  }

  @Test
  void rateOfSteadyCounterCoveringTheWindowIsItsSlope() {
    Series c = TestSeries.of(0, 100, 60, 160, 120, 220, 180, 280, 240, 340, 300, 400);
    assertThat(rate(c)).isCloseTo(1.0, within(1e-12));
    assertThat(increase(c)).isCloseTo(300.0, within(1e-9));
  }

  @Test
  void windowIncludesSampleExactlyAtItsStart() {
    // Prometheus 2.x selects [t - range, t]; 3.x would leave out the sample at 0 s.
    Series c = TestSeries.of(0, 100, 60, 160, 120, 220, 180, 280, 240, 340, 300, 400);
    assertThat(RangeFunctions.countOverTime(c, RANGE, at(300)).value(0)).isEqualTo(6);
    assertThat(RangeFunctions.countOverTime(c, RANGE, at(301)).value(0)).isEqualTo(5);
  }

  @Test
  void counterResetAddsTheValueBeforeTheDrop() {
    // 100 -> 220 (+120), reset to 10 (+10 from 0), -> 130 (+120): 250 in 300 s.
    Series c = TestSeries.of(0, 100, 60, 160, 120, 220, 180, 10, 240, 70, 300, 130);
    assertThat(increase(c)).isCloseTo(250.0, within(1e-9));
    assertThat(rate(c)).isCloseTo(250.0 / 300, within(1e-12));
  }

  @Test
  void deltaDoesNotTreatADropAsAReset() {
    Series g = TestSeries.of(0, 100, 60, 160, 120, 220, 180, 10, 240, 70, 300, 130);
    assertThat(RangeFunctions.delta(g, RANGE, at(300)).value(0)).isCloseTo(30.0, within(1e-9));
  }

  @Test
  void edgesFarFromSamplesExtrapolateHalfAnIntervalEach() {
    // Samples 100..190 s, 30 s apart: start gap 100 s and end gap 110 s both exceed 1.1 * 30 s,
    // so each side adds 15 s: 9 * (90 + 30) / 90 = 12.
    Series c = TestSeries.of(100, 20, 130, 23, 160, 26, 190, 29);
    assertThat(increase(c)).isCloseTo(12.0, within(1e-12));
    assertThat(rate(c)).isCloseTo(12.0 / 300, within(1e-12));
  }

  @Test
  void edgesNearSamplesExtrapolateAllTheWay() {
    // Samples 20..290 s, 30 s apart; gaps 20 s and 10 s are below 33 s: 27 * 300 / 270 = 30.
    double[] pairs = new double[20];
    for (int i = 0; i < 10; i++) {
      pairs[2 * i] = 20 + 30 * i;
      pairs[2 * i + 1] = 1000 + 3 * i;
    }
    assertThat(increase(TestSeries.of(pairs))).isCloseTo(30.0, within(1e-9));
  }

  @Test
  void counterIsNotExtrapolatedBelowZero() {
    // 1, 4, ..., 19 at 120..300 s: the slope reaches 0 at 110 s, 10 s before the first sample,
    // which caps the start extrapolation (instead of 15 s): 18 * 190 / 180 = 19.
    double[] pairs = new double[14];
    for (int i = 0; i < 7; i++) {
      pairs[2 * i] = 120 + 30 * i;
      pairs[2 * i + 1] = 1 + 3 * i;
    }
    Series c = TestSeries.of(pairs);
    assertThat(increase(c)).isCloseTo(19.0, within(1e-12));
    assertThat(rate(c)).isCloseTo(19.0 / 300, within(1e-12));
    // delta is for gauges: no zero clamp, half an interval (15 s) at the start: 18 * 195 / 180.
    assertThat(RangeFunctions.delta(c, RANGE, at(300)).value(0)).isCloseTo(19.5, within(1e-12));
  }

  @Test
  void fewerThanTwoSamplesGiveNoValue() {
    Series one = TestSeries.of(200, 5);
    assertThat(rate(one)).isNaN();
    assertThat(increase(one)).isNaN();
    assertThat(RangeFunctions.delta(one, RANGE, at(300)).value(0)).isNaN();
    Series none = TestSeries.of();
    assertThat(rate(none)).isNaN();
    assertThat(RangeFunctions.avgOverTime(none, RANGE, at(300)).value(0)).isNaN();
    // one sample is enough for the over-time functions
    assertThat(RangeFunctions.lastOverTime(one, RANGE, at(300)).value(0)).isEqualTo(5);
  }

  @Test
  void staleMarkerIsLeftOutOfTheWindow() {
    // 10, 20, stale, 40: the stale NaN is neither a sample nor a reset.
    Series c = TestSeries.withStaleAt(TestSeries.of(0, 10, 15, 20, 30, 0, 45, 40), 2);
    long range = 60 * S;
    assertThat(RangeFunctions.countOverTime(c, range, at(60)).value(0)).isEqualTo(3);
    assertThat(RangeFunctions.lastOverTime(c, range, at(60)).value(0)).isEqualTo(40);
    assertThat(RangeFunctions.lastOverTime(c, range, at(30)).value(0)).isEqualTo(20);
    // increase over [0, 60]: 30 over 45 s of samples (0, 15, 45 s: 22.5 s average spacing);
    // start gap 0, end gap 15 s < 24.75 s: 30 * 60 / 45 = 40.
    assertThat(RangeFunctions.increase(c, range, at(60)).value(0)).isCloseTo(40, within(1e-12));
  }

  @Test
  void overTimeFunctionsOfAGauge() {
    Series g = TestSeries.of(0, 1, 100, 7, 200, 4, 300, 2);
    assertThat(RangeFunctions.avgOverTime(g, RANGE, at(300)).value(0)).isCloseTo(3.5, within(1e-12));
    assertThat(RangeFunctions.sumOverTime(g, RANGE, at(300)).value(0)).isEqualTo(14);
    assertThat(RangeFunctions.maxOverTime(g, RANGE, at(300)).value(0)).isEqualTo(7);
    assertThat(RangeFunctions.lastOverTime(g, RANGE, at(300)).value(0)).isEqualTo(2);
    assertThat(RangeFunctions.countOverTime(g, RANGE, at(300)).value(0)).isEqualTo(4);
    // window [150, 250] holds only the sample at 200 s
    assertThat(RangeFunctions.avgOverTime(g, 100 * S, at(250)).value(0)).isEqualTo(4);
  }

  @Test
  void avgOverTimeKeepsAnInfiniteMean() {
    Series g = TestSeries.of(0, 1, 10, Double.POSITIVE_INFINITY, 20, 3);
    assertThat(RangeFunctions.avgOverTime(g, RANGE, at(20)).value(0))
        .isEqualTo(Double.POSITIVE_INFINITY);
  }

  @Test
  void evaluatesEveryStepWithASlidingWindow() {
    Series g = TestSeries.of(0, 1, 10, 2, 20, 3, 30, 4, 40, 5);
    StepSeries r = RangeFunctions.sumOverTime(g, 10 * S, new StepRange(-10 * S, 60 * S, 10 * S));
    assertThat(r.timestampsMs()).containsExactly(
        -10_000, 0, 10_000, 20_000, 30_000, 40_000, 50_000, 60_000);
    // windows [t-10, t]: {0}→1 at 0 (and at -10: [-20,-10] empty)
    assertThat(r.values()).containsExactly(Double.NaN, 1, 3, 5, 7, 9, 5, Double.NaN);
  }

  @Test
  void rejectsNonPositiveRange() {
    assertThatThrownBy(() -> RangeFunctions.rate(TestSeries.of(), 0, at(0)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("got 0");
  }

  @Test
  void goDurationSecondsMatchesGo() {
    assertThat(RangeFunctions.goDurationSeconds(300_000)).isEqualTo(300.0);
    assertThat(RangeFunctions.goDurationSeconds(1_500)).isEqualTo(1.5);
  }
}
