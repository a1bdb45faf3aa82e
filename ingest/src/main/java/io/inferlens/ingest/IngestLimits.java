package io.inferlens.ingest;

import java.time.Clock;
import java.time.Duration;
import java.util.Objects;

/**
 * Limits applied to every remote write request: size, timestamp window, per-series labels
 * ({@link LabelLimits}), the ingestion rate ({@link IngestionRate}) and HA deduplication
 * ({@link HaConfig}).
 *
 * @param maxDecodedBytes maximum declared decompressed size of a request body in bytes, 1 to
 *     {@link Integer#MAX_VALUE} - 8 (a Java array bound); default 32 MiB, the limit Prometheus
 *     itself applies to snappy-decoded remote write bodies. The compressed body is bounded by
 *     the largest snappy block that can decode to this size ({@code 32 + n + n / 6} bytes).
 * @param retentionMs how far back a sample timestamp may be, in milliseconds, &gt; 0; default 30
 *     days. Older samples would be dropped by retention at once, so they are rejected.
 * @param maxFutureMs how far ahead of {@code clock} a sample timestamp may be, in milliseconds,
 *     ≥ 0; default 10 minutes (clock skew between sender and receiver).
 * @param clock the source of "now" for the timestamp checks and the ingestion rate limit;
 *     injected so tests fix or move time
 * @param labels per-series label limits and the name rule; default {@link LabelLimits#defaults()}
 * @param rate the ingestion rate limit over all writes; default {@link IngestionRate#OFF}
 * @param ha deduplication of Prometheus HA pairs; default {@link HaConfig#OFF}
 */
public record IngestLimits(long maxDecodedBytes, long retentionMs, long maxFutureMs, Clock clock,
    LabelLimits labels, IngestionRate rate, HaConfig ha) {

  /** 32 MiB: Prometheus' own cap on a decoded remote write body. */
  public static final long DEFAULT_MAX_DECODED_BYTES = 32L << 20;

  /** 30 days in milliseconds: the default retention of the store. */
  public static final long DEFAULT_RETENTION_MS = Duration.ofDays(30).toMillis();

  /** 10 minutes in milliseconds: tolerated clock skew of senders. */
  public static final long DEFAULT_MAX_FUTURE_MS = Duration.ofMinutes(10).toMillis();

  /** Largest array the JVM reliably allocates (a few header words below Integer.MAX_VALUE). */
  private static final long MAX_ARRAY_BYTES = Integer.MAX_VALUE - 8;

  /**
   * @throws IllegalArgumentException if a limit is out of range
   * @throws NullPointerException if {@code clock}, {@code labels}, {@code rate} or {@code ha} is
   *     null
   */
  public IngestLimits {
    Objects.requireNonNull(clock, "clock");
    Objects.requireNonNull(labels, "labels");
    Objects.requireNonNull(rate, "rate");
    Objects.requireNonNull(ha, "ha");
    if (maxDecodedBytes < 1 || maxDecodedBytes > MAX_ARRAY_BYTES) {
      throw new IllegalArgumentException(
          "maxDecodedBytes must be in [1, " + MAX_ARRAY_BYTES + "], got " + maxDecodedBytes);
    }
    if (retentionMs <= 0) {
      throw new IllegalArgumentException("retentionMs must be > 0, got " + retentionMs);
    }
    if (maxFutureMs < 0) {
      throw new IllegalArgumentException("maxFutureMs must be >= 0, got " + maxFutureMs);
    }
  }

  /**
   * The limits without HA deduplication.
   *
   * @param maxDecodedBytes see the record
   * @param retentionMs see the record, milliseconds
   * @param maxFutureMs see the record, milliseconds
   * @param clock see the record
   * @param labels see the record
   * @param rate see the record
   * @throws IllegalArgumentException if a limit is out of range
   */
  public IngestLimits(long maxDecodedBytes, long retentionMs, long maxFutureMs, Clock clock,
      LabelLimits labels, IngestionRate rate) {
    this(maxDecodedBytes, retentionMs, maxFutureMs, clock, labels, rate, HaConfig.OFF);
  }

  /**
   * The size and time limits with the default label limits and no rate limit.
   *
   * @param maxDecodedBytes see the record
   * @param retentionMs see the record, milliseconds
   * @param maxFutureMs see the record, milliseconds
   * @param clock see the record
   * @throws IllegalArgumentException if a limit is out of range
   */
  public IngestLimits(long maxDecodedBytes, long retentionMs, long maxFutureMs, Clock clock) {
    this(maxDecodedBytes, retentionMs, maxFutureMs, clock, LabelLimits.defaults(),
        IngestionRate.OFF);
  }

  /**
   * @return 32 MiB decoded, 30 days retention, 10 minutes future, the UTC system clock, the
   *     default label limits, no rate limit
   */
  public static IngestLimits defaults() {
    return new IngestLimits(
        DEFAULT_MAX_DECODED_BYTES, DEFAULT_RETENTION_MS, DEFAULT_MAX_FUTURE_MS, Clock.systemUTC());
  }

  /**
   * @param newClock the clock to use instead
   * @return these limits with another clock (tests)
   */
  public IngestLimits withClock(Clock newClock) {
    return new IngestLimits(maxDecodedBytes, retentionMs, maxFutureMs, newClock, labels, rate, ha);
  }

  /**
   * @param newLabels the label limits to use instead
   * @return these limits with other label limits
   */
  public IngestLimits withLabels(LabelLimits newLabels) {
    return new IngestLimits(maxDecodedBytes, retentionMs, maxFutureMs, clock, newLabels, rate, ha);
  }

  /**
   * @param newRate the ingestion rate limit to use instead
   * @return these limits with another rate limit
   */
  public IngestLimits withRate(IngestionRate newRate) {
    return new IngestLimits(maxDecodedBytes, retentionMs, maxFutureMs, clock, labels, newRate, ha);
  }

  /**
   * @param newHa the HA deduplication to use instead
   * @return these limits with it
   */
  public IngestLimits withHa(HaConfig newHa) {
    return new IngestLimits(maxDecodedBytes, retentionMs, maxFutureMs, clock, labels, rate, newHa);
  }
}
