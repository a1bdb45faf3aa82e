package io.inferlens.ingest;

import java.time.Clock;
import java.time.Duration;
import java.util.Objects;

/**
 * Limits applied to every remote write request.
 *
 * @param maxDecodedBytes maximum declared decompressed size of a request body in bytes, 1 to
 *     {@link Integer#MAX_VALUE} - 8 (a Java array bound); default 32 MiB, the limit Prometheus
 *     itself applies to snappy-decoded remote write bodies. The compressed body is bounded by
 *     the largest snappy block that can decode to this size ({@code 32 + n + n / 6} bytes).
 * @param retentionMs how far back a sample timestamp may be, in milliseconds, &gt; 0; default 30
 *     days. Older samples would be dropped by retention at once, so they are rejected.
 * @param maxFutureMs how far ahead of {@code clock} a sample timestamp may be, in milliseconds,
 *     ≥ 0; default 10 minutes (clock skew between sender and receiver).
 * @param clock the source of "now" for the timestamp checks; injected so tests fix time
 */
public record IngestLimits(long maxDecodedBytes, long retentionMs, long maxFutureMs, Clock clock) {

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
   * @throws NullPointerException if {@code clock} is null
   */
  public IngestLimits {
    Objects.requireNonNull(clock, "clock");
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

  /** @return 32 MiB decoded, 30 days retention, 10 minutes future, the UTC system clock */
  public static IngestLimits defaults() {
    return new IngestLimits(
        DEFAULT_MAX_DECODED_BYTES, DEFAULT_RETENTION_MS, DEFAULT_MAX_FUTURE_MS, Clock.systemUTC());
  }

  /**
   * @param newClock the clock to use instead
   * @return these limits with another clock (tests)
   */
  public IngestLimits withClock(Clock newClock) {
    return new IngestLimits(maxDecodedBytes, retentionMs, maxFutureMs, newClock);
  }
}
