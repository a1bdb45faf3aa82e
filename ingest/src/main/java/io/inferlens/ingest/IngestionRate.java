package io.inferlens.ingest;

/**
 * The ingestion rate limit over all remote writes ({@code --limits.ingestion-rate},
 * {@code --limits.ingestion-burst}): a token bucket of {@code burst} samples refilled at
 * {@code samplesPerSecond}, enforced by {@link IngestionRateLimiter}. Off by default. Source:
 * Grafana Mimir's {@code ingestion_rate} / {@code ingestion_burst_size} (a request beyond the
 * bucket is refused whole with 429, retryable, nothing of it stored).
 *
 * @param samplesPerSecond refill rate in samples per second, ≥ 0 and finite; 0 turns the limit
 *     off
 * @param burst bucket size in samples, ≥ 0; 0 means one second's worth of the rate (at least 1)
 */
public record IngestionRate(double samplesPerSecond, long burst) {

  /** No rate limit. */
  public static final IngestionRate OFF = new IngestionRate(0, 0);

  /** The flag of {@link #samplesPerSecond}, as messages name it. */
  public static final String FLAG_RATE = "--limits.ingestion-rate";
  /** The flag of {@link #burst}. */
  public static final String FLAG_BURST = "--limits.ingestion-burst";

  /**
   * @throws IllegalArgumentException naming the flag of a negative or non-finite value, or of a
   *     burst given without a rate
   */
  public IngestionRate {
    if (!(samplesPerSecond >= 0) || Double.isInfinite(samplesPerSecond)) {
      throw new IllegalArgumentException(FLAG_RATE + " must be a finite number of samples/s"
          + " >= 0 (0 = off), got " + samplesPerSecond);
    }
    if (burst < 0) {
      throw new IllegalArgumentException(FLAG_BURST + " must be >= 0 samples (0 = one second"
          + " of " + FLAG_RATE + "), got " + burst);
    }
    if (burst > 0 && samplesPerSecond == 0) {
      // A burst alone limits nothing; silently ignoring it would hide a mistyped rate.
      throw new IllegalArgumentException(FLAG_BURST + " " + burst + " needs " + FLAG_RATE
          + " > 0 (the rate limit is off without it)");
    }
  }

  /** @return whether the limit is off (rate 0) */
  public boolean isOff() {
    return samplesPerSecond == 0;
  }

  /** @return the bucket size in samples, ≥ 1: {@link #burst}, or one second of the rate if 0 */
  public long effectiveBurst() {
    return burst > 0 ? burst : Math.max(1, (long) Math.ceil(samplesPerSecond));
  }
}
