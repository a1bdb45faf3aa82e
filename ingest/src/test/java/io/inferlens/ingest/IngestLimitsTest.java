package io.inferlens.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class IngestLimitsTest {

  @Test
  void defaultsAre32MibThirtyDaysTenMinutes() {
    IngestLimits d = IngestLimits.defaults();
    assertThat(d.maxDecodedBytes()).isEqualTo(33_554_432L);
    assertThat(d.retentionMs()).isEqualTo(2_592_000_000L);
    assertThat(d.maxFutureMs()).isEqualTo(600_000L);
    assertThat(d.withClock(Requests.CLOCK).clock()).isSameAs(Requests.CLOCK);
  }

  static Stream<Arguments> outOfRange() {
    return Stream.of(
        Arguments.of(0L, 1L, 0L, "maxDecodedBytes"),
        Arguments.of((long) Integer.MAX_VALUE, 1L, 0L, "maxDecodedBytes"),
        Arguments.of(1L, 0L, 0L, "retentionMs"),
        Arguments.of(1L, 1L, -1L, "maxFutureMs"));
  }

  @ParameterizedTest
  @MethodSource
  void outOfRange(long maxDecodedBytes, long retentionMs, long maxFutureMs, String named) {
    assertThatThrownBy(() -> new IngestLimits(maxDecodedBytes, retentionMs, maxFutureMs,
        Clock.systemUTC())).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(named);
  }
}
