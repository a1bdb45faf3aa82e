package io.inferlens.analysis.incident;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock a test moves by hand: {@link #ms} is now, milliseconds since the epoch. */
public final class MutableClock extends Clock {
  /** Now, milliseconds since the epoch; tests set or add to it. */
  public volatile long ms;

  /** @param ms the start, milliseconds since the epoch */
  public MutableClock(long ms) {
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
