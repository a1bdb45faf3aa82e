package io.inferlens.analysis.incident;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock a test moves by hand. */
final class MutableClock extends Clock {
  volatile long ms;

  MutableClock(long ms) {
    this.ms = ms;
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(ms);
  }

  @Override
  public long millis() {
    return ms;
  }
}
