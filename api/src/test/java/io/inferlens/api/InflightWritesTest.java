package io.inferlens.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The in-flight bound's rules at its boundaries. */
class InflightWritesTest {

  @Test
  void admitsUpToTheLimitAndRefusesOneByteMore() {
    InflightWrites w = new InflightWrites(100);
    assertThat(w.tryAcquire(60)).isTrue();
    assertThat(w.tryAcquire(40)).isTrue();
    assertThat(w.inflightBytes()).isEqualTo(100);
    assertThat(w.tryAcquire(1)).isFalse();
    w.release(40);
    assertThat(w.tryAcquire(41)).isFalse();
    assertThat(w.tryAcquire(40)).isTrue();
  }

  @Test
  void aLoneRequestLargerThanTheLimitIsAdmittedWhenNothingElseIsInFlight() {
    InflightWrites w = new InflightWrites(100);
    assertThat(w.tryAcquire(500)).isTrue();
    assertThat(w.tryAcquire(1)).isFalse();
    w.release(500);
    assertThat(w.inflightBytes()).isZero();
    assertThat(w.tryAcquire(1)).isTrue();
  }

  @Test
  void theLimitMustBePositive() {
    assertThatThrownBy(() -> new InflightWrites(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--max-inflight-write-bytes");
  }
}
