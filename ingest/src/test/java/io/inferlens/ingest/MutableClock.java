package io.inferlens.ingest;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock a test moves by hand, in milliseconds. */
final class MutableClock extends Clock {
  private volatile long ms;

  MutableClock(long ms) {
    this.ms = ms;
  }

  /** @param deltaMs milliseconds to move forward (or back, if negative) */
  void advance(long deltaMs) {
    ms += deltaMs;
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
