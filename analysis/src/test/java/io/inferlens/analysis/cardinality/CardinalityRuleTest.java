package io.inferlens.analysis.cardinality;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The CARDINALITY_EXPLOSION rule at each boundary: one below, at, and one past. */
class CardinalityRuleTest {

  private final CardinalityRule rule = CardinalityRule.DEFAULTS;

  @Test
  void newSeriesAtTheirBoundary() {
    // 1 target, 10 series then: the factor is passed by far, only the new series decide.
    assertThat(rule.exploding(10, 1, 10, 10 + 999, 1, 10 + 999, 0)).isFalse();
    assertThat(rule.exploding(10, 1, 10, 10 + 1_000, 1, 10 + 1_000, 0)).isTrue();
    assertThat(rule.exploding(10, 1, 10, 10 + 1_001, 1, 10 + 1_001, 0)).isTrue();
  }

  @Test
  void growthFactorAtItsBoundary() {
    // 100 targets of 10 series: x3 per target is 3,000 series (2,000 new, past the minimum).
    assertThat(rule.exploding(1_000, 100, 10, 2_999, 100, 30, 0)).isFalse();
    assertThat(rule.exploding(1_000, 100, 10, 3_000, 100, 30, 0)).isTrue();
    assertThat(rule.exploding(1_000, 100, 10, 3_001, 100, 31, 0)).isTrue();
    // A division that does not come out even: 10 series on 3 targets, 3 targets now.
    assertThat(rule.exploding(10, 3, 4, 1_029, 3, 343, 0)).isTrue();
    assertThat(rule.holds(10.0 / 3, 29, 3)).isFalse();
    assertThat(rule.holds(10.0 / 3, 30, 3)).isTrue();
  }

  @Test
  void aBombOnOneOfManyTargetsIsSeenOnTheBusiestTarget() {
    // 100 targets of 30 series, a scale-out to 200, and one target gaining a request_id label:
    // the average over 200 targets barely moves (35 per target), the busiest target decides.
    assertThat(rule.exploding(3_000, 100, 30, 5_970 + 1_029, 200, 1_029, 0)).isFalse();
    assertThat(rule.exploding(3_000, 100, 30, 5_970 + 1_030, 200, 1_030, 0)).isTrue();
    assertThat(rule.exploding(3_000, 100, 30, 5_970 + 1_031, 200, 1_031, 0)).isTrue();
    // A busiest target of 600 then: it must reach 3 x 600 = 1,800 (its gain past 1,000 anyway).
    assertThat(rule.exploding(3_570, 100, 600, 2_970 + 1_799, 100, 1_799, 0)).isFalse();
    assertThat(rule.exploding(3_570, 100, 600, 2_970 + 1_800, 100, 1_800, 0)).isTrue();
    assertThat(rule.exploding(3_570, 100, 600, 2_970 + 1_801, 100, 1_801, 0)).isTrue();
    // An open finding holds on either figure.
    assertThat(rule.holds(35.7, 600, 4_770, 100, 1_800)).isTrue();
    assertThat(rule.holds(35.7, 600, 4_769, 100, 1_799)).isFalse();
    assertThat(rule.holds(35.7, Double.NaN, 4_769, 100, 1_799)).isFalse();
    assertThat(rule.busiestThen(0, 1_000)).isEqualTo(1_000 / 3.0);
  }

  @Test
  void aNewMetricMustArriveWithTheMinimumPerTarget() {
    assertThat(rule.perTargetThen(0, 0, 1_000)).isEqualTo(1_000 / 3.0);
    assertThat(rule.exploding(0, 0, 0, 999, 1, 999, 0)).isFalse();
    assertThat(rule.exploding(0, 0, 0, 1_000, 1, 1_000, 0)).isTrue();
    assertThat(rule.exploding(0, 0, 0, 1_001, 1, 1_001, 0)).isTrue();
    // A new exporter on 100 targets, 30 bucket series each: 3,000 new series, silent.
    assertThat(rule.exploding(0, 0, 0, 3_000, 100, 30, 0)).isFalse();
    // 2,000 series over 2 targets is 1,000 each: at the boundary; over 3 targets below it.
    assertThat(rule.exploding(0, 0, 0, 2_000, 2, 1_000, 0)).isTrue();
    assertThat(rule.exploding(0, 0, 0, 2_000, 3, 667, 0)).isFalse();
  }

  @Test
  void aGrowingFleetIsSilent() {
    // 10 vLLM replicas of 300 series each, then 50 (a scale-out), then 50 with a second model.
    assertThat(rule.exploding(3_000, 10, 300, 15_000, 50, 300, 0)).isFalse();
    assertThat(rule.exploding(15_000, 50, 300, 30_000, 100, 300, 0)).isFalse();
    // The same series on the same targets, twice as many per target: below the factor.
    assertThat(rule.exploding(3_000, 10, 300, 6_000, 10, 600, 0)).isFalse();
  }

  @Test
  void aLowPerMetricLimitLowersTheMinimum() {
    assertThat(rule.minNewSeries(0)).isEqualTo(1_000);
    assertThat(rule.minNewSeries(100_000)).isEqualTo(1_000);
    assertThat(rule.minNewSeries(2_000)).isEqualTo(1_000);
    assertThat(rule.minNewSeries(1_000)).isEqualTo(500);
    assertThat(rule.minNewSeries(1)).isEqualTo(1);
    // A bomb clipped at a limit of 1,000: 990 new series from 10 is enough.
    assertThat(rule.exploding(10, 1, 10, 1_000, 1, 1_000, 1_000)).isTrue();
    assertThat(rule.exploding(10, 1, 10, 509, 1, 509, 1_000)).isFalse();
    assertThat(rule.exploding(10, 1, 10, 510, 1, 510, 1_000)).isTrue();
  }

  @Test
  void outOfRangeSettingsNameTheirField() {
    assertThatThrownBy(() -> new CardinalityRule(0, 60_000, 1_000, 3, 10))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("window");
    assertThatThrownBy(() -> new CardinalityRule(60_000, 120_000, 1_000, 3, 10))
        .hasMessageContaining("sample interval");
    assertThatThrownBy(() -> new CardinalityRule(600_000, 60_000, 0, 3, 10))
        .hasMessageContaining("minNewSeries (0)");
    assertThatThrownBy(() -> new CardinalityRule(600_000, 60_000, 1_000, 1.0, 10))
        .hasMessageContaining("growthFactor (1.0)");
    assertThatThrownBy(() -> new CardinalityRule(600_000, 60_000, 1_000, 3, 0))
        .hasMessageContaining("maxMetrics (0)");
  }
}
