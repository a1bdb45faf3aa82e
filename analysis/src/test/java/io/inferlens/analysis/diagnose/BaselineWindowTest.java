package io.inferlens.analysis.diagnose;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;

class BaselineWindowTest {

  private static final long BLOCK = 15 * 60_000L;
  private static final long DAY = 86_400_000L;

  /** The sliding P95 equals a histogram built afresh from the values still inside the lookback. */
  @Test
  void p95EqualsTheValuesInsideTheLookback() {
    BaselineWindow w = new BaselineWindow(DAY);
    Random r = new Random(7);
    int blocksPerDay = (int) (DAY / BLOCK);
    int total = 3 * blocksPerDay;
    double[][] values = new double[total][];
    for (int b = 0; b < total; b++) {
      w.advance(b, BLOCK);
      values[b] = new double[60];
      for (int i = 0; i < 60; i++) {
        // A level that drifts by day, so the window's P95 moves as blocks leave.
        values[b][i] = (b / blocksPerDay + 1) * (0.5 + r.nextDouble());
        w.add(values[b][i], 1);
      }
      BaselineHistogram fresh = new BaselineHistogram();
      for (int k = Math.max(0, b - blocksPerDay); k <= b; k++) {
        for (double v : values[k]) {
          fresh.add(v);
        }
      }
      // Recomputed once the count moved by 1 % or a block left: exact at every block here.
      assertThat(w.baseline(15_000L, 0)).isEqualTo(fresh.quantile(0.95));
    }
  }

  /** Silent blocks cost nothing: 14 days of advancing without values keep no block. */
  @Test
  void emptyBlocksAreNotKept() {
    BaselineWindow w = new BaselineWindow(14 * DAY);
    for (long b = 0; b < 14 * DAY / BLOCK; b++) {
      w.advance(b, BLOCK);
    }
    assertThat(w.blocksKept()).isZero();
    assertThat(w.baseline(15_000L, 0)).isNaN();
    w.add(2.0, 20);
    w.add(Double.NaN, 1);
    w.add(-1, 1);
    assertThat(w.blocksKept()).isEqualTo(1);
    assertThat(w.baseline(15_000L, 20 * 15_000L)).isCloseTo(2.0, org.assertj.core.data.Offset.offset(0.02));
    assertThat(w.baseline(15_000L, 21 * 15_000L)).isNaN();
  }
}
