package io.inferlens.analysis.smoothing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class SmoothingTest {

  static final double NaN = Double.NaN;

  @Test
  void smaAveragesTheLastNPointsSkippingNaN() {
    double[] out = Smoothing.sma(new double[] {1, 2, NaN, 4, 5}, 3);
    // {1}, {1,2}, {1,2,_}, {2,_,4}, {_,4,5}
    assertThat(out).containsExactly(1, 1.5, 1.5, 3, 4.5);
  }

  @Test
  void smaIsNaNUntilTheFirstValueAndAcrossLongGaps() {
    assertThat(Smoothing.sma(new double[] {NaN, NaN, 3, NaN, NaN, 6}, 2))
        .containsExactly(NaN, NaN, 3, 3, NaN, 6);
  }

  @Test
  void emaStartsAtTheFirstValueWithAlphaTwoOverNPlusOne() {
    // n = 3: alpha = 0.5
    assertThat(Smoothing.ema(new double[] {2, 4, NaN, 8}, 3)).containsExactly(2, 3, 3, 5.5);
    assertThat(Smoothing.ema(new double[] {NaN, 1, 3}, 3)).containsExactly(NaN, 1, 2);
  }

  @Test
  void defaultWindowIsTenWithAlphaAboutPointEighteen() {
    assertThat(Smoothing.alpha(Smoothing.DEFAULT_N)).isCloseTo(0.1818, within(1e-4));
    double[] out = Smoothing.ema(new double[] {0, 11});
    assertThat(out[1]).isCloseTo(2.0, within(1e-12)); // 2/11 * 11
    assertThat(Smoothing.sma(new double[] {1, 2, 3})[2]).isEqualTo(2);
  }

  @Test
  void windowOfOneDoesNotSmooth() {
    double[] in = {3, 1, 4, 1, 5};
    assertThat(Smoothing.ema(in, 1)).containsExactly(in);
    assertThat(Smoothing.sma(in, 1)).containsExactly(in);
  }

  @Test
  void rejectsWindowBelowOne() {
    assertThatThrownBy(() -> Smoothing.sma(new double[0], 0)).hasMessageContaining("got 0");
    assertThatThrownBy(() -> Smoothing.ema(new double[0], -1)).hasMessageContaining("got -1");
  }
}
