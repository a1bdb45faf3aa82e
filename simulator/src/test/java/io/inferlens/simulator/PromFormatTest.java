package io.inferlens.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PromFormatTest {

  @Test
  void pythonClientFormatMatchesFixtureSpellings() {
    assertThat(PromFormat.pyFloat(14)).isEqualTo("14.0");
    assertThat(PromFormat.pyFloat(0)).isEqualTo("0.0");
    assertThat(PromFormat.pyFloat(0.2713082437275986)).isEqualTo("0.2713082437275986");
    assertThat(PromFormat.pyFloat(93434)).isEqualTo("93434.0");
    assertThat(PromFormat.pyFloat(2.27223996e8)).isEqualTo("2.27223996e+08");
    assertThat(PromFormat.pyFloat(5.7243917e7)).isEqualTo("5.7243917e+07");
    assertThat(PromFormat.pyFloat(1.7678305324471903e9)).isEqualTo("1.7678305324471903e+09");
    assertThat(PromFormat.pyFloat(1.767830532447208e9)).isEqualTo("1.767830532447208e+09");
    assertThat(PromFormat.pyFloat(1.3303275084565177e6)).isEqualTo("1.3303275084565177e+06");
    assertThat(PromFormat.pyFloat(19980.477981798173)).isEqualTo("19980.477981798173");
    assertThat(PromFormat.pyFloat(4.1237590784e10)).isEqualTo("4.1237590784e+010");
    assertThat(PromFormat.pyFloat(1e6)).isEqualTo("1e+06");
    assertThat(PromFormat.pyFloat(999999)).isEqualTo("999999.0");
    assertThat(PromFormat.pyFloat(0.001)).isEqualTo("0.001");
    assertThat(PromFormat.pyFloat(0.0001)).isEqualTo("0.0001");
    assertThat(PromFormat.pyFloat(1e-5)).isEqualTo("1e-05");
    assertThat(PromFormat.pyFloat(2560)).isEqualTo("2560.0");
    assertThat(PromFormat.pyFloat(Double.POSITIVE_INFINITY)).isEqualTo("+Inf");
    assertThat(PromFormat.pyFloat(0.1 + 0.2)).isEqualTo("0.30000000000000004");
  }

  @Test
  void goFormatMatchesKafkaExporterSpellings() {
    assertThat(PromFormat.goFloat(1910858)).isEqualTo("1.910858e+06");
    assertThat(PromFormat.goFloat(2.100631e7)).isEqualTo("2.100631e+07");
    assertThat(PromFormat.goFloat(16070)).isEqualTo("16070");
    assertThat(PromFormat.goFloat(999999)).isEqualTo("999999");
    assertThat(PromFormat.goFloat(1e6)).isEqualTo("1e+06");
    assertThat(PromFormat.goFloat(-1)).isEqualTo("-1");
    assertThat(PromFormat.goFloat(0)).isEqualTo("0");
    assertThat(PromFormat.goFloat(0.5)).isEqualTo("0.5");
  }

  @Test
  void rustFormatMatchesTgiSpellings() {
    assertThat(PromFormat.rustFloat(0.0001 * 1.5)).isEqualTo("0.00015000000000000001");
    assertThat(PromFormat.rustFloat(145.61096060497135)).isEqualTo("145.61096060497135");
    assertThat(PromFormat.rustFloat(23)).isEqualTo("23");
    assertThat(PromFormat.rustFloat(8000)).isEqualTo("8000");
    assertThat(PromFormat.rustFloat(1034669.7276587212)).isEqualTo("1034669.7276587212");
    assertThat(PromFormat.rustFloat(122080496)).isEqualTo("122080496");
    assertThat(PromFormat.rustFloat(1e-7)).isEqualTo("0.0000001");
    assertThat(PromFormat.rustFloat(0)).isEqualTo("0");
    assertThat(PromFormat.rustFloat(-2.5)).isEqualTo("-2.5");
  }

  @Test
  void labelValuesAreEscaped() {
    assertThat(PromFormat.escape("a\"b\\c\nd")).isEqualTo("a\\\"b\\\\c\\nd");
  }
}
