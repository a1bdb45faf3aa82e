package io.inferlens.ingest;

import java.time.Clock;
import java.util.Objects;

/**
 * A token bucket over all remote writes, counted in samples: it holds at most
 * {@link IngestionRate#effectiveBurst()} tokens, starts full, and refills at
 * {@link IngestionRate#samplesPerSecond()} tokens per second of {@code clock} time. A request of
 * {@code n} samples is admitted when the bucket holds at least {@code min(n, burst)} tokens, and
 * then takes {@code n}; otherwise it takes nothing and is told how long to wait.
 *
 * <p>Source: Grafana Mimir's ingestion rate limit ({@code ingestion_rate},
 * {@code ingestion_burst_size}; golang.org/x/time/rate's token bucket, {@code AllowN}). One
 * difference, on purpose: with {@code AllowN} a request of more samples than the burst is never
 * admitted, so its sender retries it forever; here it is admitted once the bucket is full and
 * leaves the bucket in debt (negative), which the refill pays back before anything else is
 * admitted. The long-run rate stays at most {@code samplesPerSecond} either way.
 *
 * <p>Thread safety: thread safe (one lock, taken once per request).
 */
public final class IngestionRateLimiter {

  private final double perSecond;
  private final long burst;
  private final Clock clock;
  private double tokens;
  private long lastMs;

  /**
   * @param rate the rate and burst; must not be {@link IngestionRate#isOff() off}
   * @param clock the time source, milliseconds; injected so tests move time by hand
   * @throws IllegalArgumentException if the rate is off
   */
  public IngestionRateLimiter(IngestionRate rate, Clock clock) {
    Objects.requireNonNull(rate, "rate");
    this.clock = Objects.requireNonNull(clock, "clock");
    if (rate.isOff()) {
      throw new IllegalArgumentException("the ingestion rate limit is off: no limiter needed");
    }
    this.perSecond = rate.samplesPerSecond();
    this.burst = rate.effectiveBurst();
    this.tokens = burst;
    this.lastMs = clock.millis();
  }

  /**
   * Takes {@code samples} tokens if the request is admitted.
   *
   * @param samples samples in the request, ≥ 0 (0 is always admitted and takes nothing)
   * @return 0 when admitted; otherwise the whole seconds to wait before the bucket holds enough
   *     (the {@code Retry-After} value), ≥ 1
   */
  public synchronized long tryAcquire(long samples) {
    if (samples <= 0) {
      return 0;
    }
    long now = clock.millis();
    if (now > lastMs) { // a clock stepped back refills nothing, and is not remembered
      // Rate times milliseconds first: exact for whole rates, where perMs (e.g. 0.1) is not.
      tokens = Math.min(burst, tokens + (now - lastMs) * perSecond / 1000.0);
      lastMs = now;
    }
    double need = Math.min(samples, burst);
    if (tokens >= need) {
      tokens -= samples;
      return 0;
    }
    double waitSeconds = (need - tokens) / perSecond;
    return Math.max(1, (long) Math.ceil(waitSeconds));
  }

  /** @return the refill rate in samples per second, &gt; 0 */
  public double samplesPerSecond() {
    return perSecond;
  }

  /** @return the bucket size in samples */
  public long burst() {
    return burst;
  }
}
