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
    assertThat(rule.exploding(10, 1, 10 + 999, 1, 0)).isFalse();
    assertThat(rule.exploding(10, 1, 10 + 1_000, 1, 0)).isTrue();
    assertThat(rule.exploding(10, 1, 10 + 1_001, 1, 0)).isTrue();
  }

  @Test
  void growthFactorAtItsBoundary() {
    // 100 targets of 10 series: x3 per target is 3,000 series (2,000 new, past the minimum).
    assertThat(rule.exploding(1_000, 100, 2_999, 100, 0)).isFalse();
    assertThat(rule.exploding(1_000, 100, 3_000, 100, 0)).isTrue();
    assertThat(rule.exploding(1_000, 100, 3_001, 100, 0)).isTrue();
    // A division that does not come out even: 10 series on 3 targets, 3 targets now.
    assertThat(rule.exploding(10, 3, 1_029, 3, 0)).isTrue();
    assertThat(rule.holds(10.0 / 3, 29, 3)).isFalse();
    assertThat(rule.holds(10.0 / 3, 30, 3)).isTrue();
  }

  @Test
  void aNewMetricMustArriveWithTheMinimumPerTarget() {
    assertThat(rule.perTargetThen(0, 0, 1_000)).isEqualTo(1_000 / 3.0);
    assertThat(rule.exploding(0, 0, 999, 1, 0)).isFalse();
    assertThat(rule.exploding(0, 0, 1_000, 1, 0)).isTrue();
    assertThat(rule.exploding(0, 0, 1_001, 1, 0)).isTrue();
    // A new exporter on 100 targets, 30 bucket series each: 3,000 new series, silent.
    assertThat(rule.exploding(0, 0, 3_000, 100, 0)).isFalse();
    // 2,000 series over 2 targets is 1,000 each: at the boundary; over 3 targets below it.
    assertThat(rule.exploding(0, 0, 2_000, 2, 0)).isTrue();
    assertThat(rule.exploding(0, 0, 2_000, 3, 0)).isFalse();
  }

  @Test
  void aGrowingFleetIsSilent() {
    // 10 vLLM replicas of 300 series each, then 50 (a scale-out), then 50 with a second model.
    assertThat(rule.exploding(3_000, 10, 15_000, 50, 0)).isFalse();
    assertThat(rule.exploding(15_000, 50, 30_000, 100, 0)).isFalse();
    // The same series on the same targets, twice as many per target: below the factor.
    assertThat(rule.exploding(3_000, 10, 6_000, 10, 0)).isFalse();
  }

  @Test
  void aLowPerMetricLimitLowersTheMinimum() {
    assertThat(rule.minNewSeries(0)).isEqualTo(1_000);
    assertThat(rule.minNewSeries(100_000)).isEqualTo(1_000);
    assertThat(rule.minNewSeries(2_000)).isEqualTo(1_000);
    assertThat(rule.minNewSeries(1_000)).isEqualTo(500);
    assertThat(rule.minNewSeries(1)).isEqualTo(1);
    // A bomb clipped at a limit of 1,000: 990 new series from 10 is enough.
    assertThat(rule.exploding(10, 1, 1_000, 1, 1_000)).isTrue();
    assertThat(rule.exploding(10, 1, 509, 1, 1_000)).isFalse();
    assertThat(rule.exploding(10, 1, 510, 1, 1_000)).isTrue();
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
