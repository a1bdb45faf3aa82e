package io.inferlens.analysis.promql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class StepRangeTest {

  @Test
  void stepsRunFromStartUpToEndWithoutAlignment() {
    StepRange r = new StepRange(1_001, 31_000, 15_000);
    assertThat(r.count()).isEqualTo(2);
    assertThat(r.timestampsMs()).containsExactly(1_001, 16_001);
  }

  @Test
  void rejectsBadRanges() {
    assertThatThrownBy(() -> new StepRange(0, 10, 0)).hasMessageContaining("stepMs");
    assertThatThrownBy(() -> new StepRange(10, 0, 1)).hasMessageContaining("before");
    assertThatThrownBy(() -> new StepRange(0, 11_000, 1)).hasMessageContaining("11000");
    assertThat(new StepRange(0, 10_999, 1).count()).isEqualTo(StepRange.MAX_STEPS);
  }
}
