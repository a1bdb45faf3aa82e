package io.inferlens.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** The one time, duration and step parser, against the forms Prometheus accepts. */
class TimeParamsTest {

  @ParameterizedTest(name = "time {0} -> {1} ms")
  @CsvSource({
      "1700000000, 1700000000000",
      "1700000000.123, 1700000000123",
      "1700000000.1239, 1700000000123",
      "0, 0",
      "2023-11-14T22:13:20Z, 1700000000000",
      "2023-11-14T22:13:20.5Z, 1700000000500",
      "2023-11-14T23:13:20+01:00, 1700000000000",
  })
  void timesInSecondsOrRfc3339(String raw, long ms) {
    assertThat(TimeParams.parseTimeMs("start", raw)).isEqualTo(ms);
  }

  @ParameterizedTest(name = "bad time {0}")
  @CsvSource({"yesterday", "1700000000000", "2023-11-14", "12:00"})
  void badTimesName400Parameter(String raw) {
    assertThatThrownBy(() -> TimeParams.parseTimeMs("end", raw))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("parameter end");
  }

  @ParameterizedTest(name = "duration {0} -> {1} ms")
  @CsvSource({
      "15, 15000", "0.5, 500", "1.25, 1250", "1e3, 1000000", ".5, 500",
      "100ms, 100", "15s, 15000", "5m, 300000", "1h30m, 5400000", "1h, 3600000",
      "2d, 172800000", "1w, 604800000", "1m30s500ms, 90500",
  })
  void durationsInFloatSecondsOrPrometheusForm(String raw, long ms) {
    assertThat(TimeParams.parseDurationMs("step", raw)).isEqualTo(ms);
  }

  @ParameterizedTest(name = "bad duration {0}")
  @CsvSource({"0", "-5", "0s", "1d2", "abc", "5 m", "1f", "0.0001", "Inf", "NaN", "-1m"})
  void badDurationsNameTheParameter(String raw) {
    assertThatThrownBy(() -> TimeParams.parseDurationMs("step", raw))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("parameter step").hasMessageContaining(raw);
  }

  @ParameterizedTest(name = "step {0} over {1} ms, base {2}, max {3} -> {4}")
  @CsvSource({
      // absent: the analysis step when the range fits
      ", 3600000, 15000, 2000, 15000",
      // requested step kept when it fits, even if not a multiple of the base
      "7s, 3600000, 15000, 2000, 7000",
      // 30 days at 1 s is 2,592,001 steps: coarsen to the smallest multiple of 1 s that fits
      ", 2592000000, 1000, 400000, 7000",
      // 1 day at 15 s over 2,000 points: 45 s (1921 steps), not 44 s
      ", 86400000, 15000, 2000, 45000",
      "1s, 86400000, 15000, 2000, 45000",
  })
  void stepsAreCoarsenedToAMultipleOfTheBaseThatFits(String raw, long rangeMs, long baseMs,
      long max, long want) {
    long step = TimeParams.stepMs(raw, rangeMs, baseMs, max);
    assertThat(step).isEqualTo(want);
    assertThat(rangeMs / step + 1).isLessThanOrEqualTo(max);
  }

  @Test
  void missingRangeDefaultsToSixHoursBeforeNow() {
    Clock clock = Clock.fixed(Instant.ofEpochSecond(1_700_000_000), ZoneOffset.UTC);
    TimeParams t = TimeParams.parse(null, "", clock);
    assertThat(t.endMs()).isEqualTo(1_700_000_000_000L);
    assertThat(t.startMs()).isEqualTo(t.endMs() - TimeParams.DEFAULT_LOOKBACK_MS);
    assertThatThrownBy(() -> TimeParams.parse("1700000001", "1700000000", clock))
        .hasMessageContaining("end").hasMessageContaining("before start");
  }
}
