package io.inferlens.analysis.diagnose;

import java.util.List;
import java.util.Map;

/**
 * A diagnosed period of one target (docs/DESIGN.md section 4).
 *
 * @param id stable for the same target, cause and start: {@code target-id/cause/startMs}
 * @param cause the cause code
 * @param severity {@code critical} or {@code warning}
 * @param target the target's grouping labels (job, instance, model_name, …)
 * @param startMs first step at which the condition held, milliseconds
 * @param endMs last step at which it held, milliseconds; null while it still holds at the end of
 *     the data
 * @param summary one sentence a person can act on, with the numbers
 * @param chain latency, queue and resource layers, in that order
 * @param recommendations what to change, most effective first
 * @param stale whether the period is open while its target has sent nothing since its last
 *     step (silence neither extends nor resolves it: only data showing recovery does)
 */
public record Diagnosis(String id, Cause cause, String severity, Map<String, String> target,
    long startMs, Long endMs, String summary, List<ChainLayer> chain,
    List<String> recommendations, boolean stale) {

  /** @return a copy with another id, start and end (merging and journal adoption) */
  public Diagnosis withSpan(String newId, long newStartMs, Long newEndMs) {
    return new Diagnosis(newId, cause, severity, target, newStartMs, newEndMs, summary, chain,
        recommendations, stale);
  }

  /** @return a copy marked stale or not (its target silent since its last step) */
  public Diagnosis withStale(boolean isStale) {
    return isStale == stale ? this : new Diagnosis(id, cause, severity, target, startMs, endMs,
        summary, chain, recommendations, isStale);
  }
}
