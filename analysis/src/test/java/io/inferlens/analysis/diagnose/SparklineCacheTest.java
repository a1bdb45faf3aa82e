package io.inferlens.analysis.diagnose;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** What the sparkline cache keeps, gives back and forgets when samples arrive late. */
class SparklineCacheTest {

  static final long STEP = 60_000;

  @Test
  void keepsOnlyStepsBeforeTheCacheableBoundAndGivesThemBackFromAnyGridStart() {
    SparklineCache c = new SparklineCache();
    c.put("k", 0, STEP, new double[] {1, 2, 3, 4, 5}, 3 * STEP); // steps 0, 1, 2 kept
    assertThat(c.get("k", 0, STEP)).containsExactly(1, 2, 3);
    assertThat(c.get("k", STEP, STEP)).containsExactly(2, 3);
    assertThat(c.get("k", 3 * STEP, STEP)).isNull(); // past what is kept
    assertThat(c.get("k", -STEP, STEP)).isNull(); // before the line
    assertThat(c.get("k", STEP / 2, STEP)).isNull(); // off the grid
    assertThat(c.get("k", 0, 2 * STEP)).isNull(); // another step
    assertThat(c.get("other", 0, STEP)).isNull();
  }

  @Test
  void aLateSampleCutsEveryLineBackBeforeIt() {
    SparklineCache c = new SparklineCache();
    c.put("a", 0, STEP, new double[] {1, 2, 3, 4}, 10 * STEP);
    c.put("b", 5 * STEP, STEP, new double[] {7, 8}, 10 * STEP);
    c.invalidate(2 * STEP + 1, 2 * STEP + 1); // steps 0..2 keep their windows
    assertThat(c.get("a", 0, STEP)).containsExactly(1, 2, 3);
    assertThat(c.get("b", 5 * STEP, STEP)).isNull(); // all of it after the sample
    c.invalidate(STEP, STEP);
    assertThat(c.get("a", 0, STEP)).containsExactly(1);
  }

  @Test
  void aLineHoldsAtMostMaxStepsTheNewestKept() {
    SparklineCache c = new SparklineCache();
    double[] v = new double[SparklineCache.MAX_STEPS + 10];
    for (int i = 0; i < v.length; i++) {
      v[i] = i;
    }
    c.put("k", 0, STEP, v, Long.MAX_VALUE);
    assertThat(c.get("k", 0, STEP)).isNull();
    double[] kept = c.get("k", 10 * STEP, STEP);
    assertThat(kept).hasSize(SparklineCache.MAX_STEPS);
    assertThat(kept[0]).isEqualTo(10);
  }
}
