package io.inferlens.analysis.diagnose;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class SummariesTest {

  private static Evidence latency(String signal, double value, double threshold) {
    return new Evidence(signal, value, threshold, null, "s", "5m", value, value, null, null);
  }

  @Test
  void aBreachJustOverItsThresholdDoesNotReadAsEqual() {
    String s = Summaries.summary(Cause.PER_REQUEST_SLOWDOWN, List.of(new ChainLayer("latency",
        "breached", List.of(latency("ttft_p95", 2.02, 2.0), latency("e2e_p95", 12.1, 4.5),
            latency("tpot_p95", 0.0504, 0.05)))), 600_000);
    assertThat(s).contains("TTFT P95 2.02 s vs threshold 2.00 s")
        .contains("E2E P95 12.1 s vs threshold 4.5 s")
        .contains("TPOT P95 50.4 ms vs threshold 50.0 ms")
        .contains(" for 10m");
  }
}
