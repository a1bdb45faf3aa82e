package io.inferlens.analysis.promql.engine;

/**
 * Limits and defaults of the PromQL engine, named as Prometheus's flags.
 *
 * @param lookbackDeltaMs how far back an instant selector looks for a sample
 *     ({@code --query.lookback-delta}, default 5 minutes), milliseconds, &gt; 0
 * @param maxSamples most samples one query may hold at once ({@code --query.max-samples}, default
 *     50,000,000), &gt; 0
 * @param timeoutMs longest evaluation ({@code --query.timeout}, default 2 minutes), milliseconds,
 *     &gt; 0
 * @param maxConcurrency most queries evaluated at once ({@code --query.max-concurrency}, default
 *     20); others wait, up to their timeout
 * @param defaultSubqueryStepMs step of a subquery written without one ({@code expr[1h:]}):
 *     Prometheus uses its global evaluation interval, 1 minute by default; milliseconds, &gt; 0
 */
public record EngineOptions(long lookbackDeltaMs, long maxSamples, long timeoutMs,
    int maxConcurrency, long defaultSubqueryStepMs) {

  /** Prometheus 2.42's defaults. */
  public static final EngineOptions DEFAULTS =
      new EngineOptions(5 * 60_000L, 50_000_000L, 2 * 60_000L, 20, 60_000L);

  /** @throws IllegalArgumentException naming the first option out of range */
  public EngineOptions {
    if (lookbackDeltaMs <= 0) {
      throw new IllegalArgumentException("--query.lookback-delta must be > 0, got " + lookbackDeltaMs
          + " ms");
    }
    if (maxSamples <= 0) {
      throw new IllegalArgumentException("--query.max-samples must be > 0, got " + maxSamples);
    }
    if (timeoutMs <= 0) {
      throw new IllegalArgumentException("--query.timeout must be > 0, got " + timeoutMs + " ms");
    }
    if (maxConcurrency <= 0) {
      throw new IllegalArgumentException("--query.max-concurrency must be > 0, got "
          + maxConcurrency);
    }
    if (defaultSubqueryStepMs <= 0) {
      throw new IllegalArgumentException("default subquery step must be > 0, got "
          + defaultSubqueryStepMs + " ms");
    }
  }
}
