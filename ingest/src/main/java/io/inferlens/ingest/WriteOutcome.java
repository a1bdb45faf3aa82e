package io.inferlens.ingest;

import java.util.Map;

/**
 * What a remote write request did, for the api module to turn into a response and metrics.
 *
 * <p>{@code ok == false} means the request must be answered 400 (do not retry) with
 * {@code errorMessage}; the valid series of the same request are nevertheless already durable
 * (docs/DESIGN.md §2). {@code ok == true} means 2xx: every sample was appended or was an exact
 * duplicate.
 *
 * @param ok whether no series or sample was rejected
 * @param errorMessage null when {@code ok}; otherwise the first error in full, naming the series
 *     and the numbers, followed by "; also refused: N more series, M more samples conflicting
 *     with stored samples (counts by reason: …)" when there were more
 * @param samplesAppended samples newly stored (durable), ≥ 0
 * @param samplesDuplicate samples identical to stored ones (idempotent retries), ≥ 0
 * @param seriesCreated series seen for the first time by the store, ≥ 0
 * @param rejectedByReason rejected sample counts keyed by {@link RejectReason#key()} (including
 *     {@code conflict} for store rejections); only reasons that occurred; unmodifiable
 * @param metadataCount MetricMetadata messages in the request (counted, not stored)
 */
public record WriteOutcome(
    boolean ok,
    String errorMessage,
    long samplesAppended,
    long samplesDuplicate,
    long seriesCreated,
    Map<String, Long> rejectedByReason,
    int metadataCount) {

  /** Makes the map unmodifiable. */
  public WriteOutcome {
    rejectedByReason = Map.copyOf(rejectedByReason);
  }

  /** @return the total number of rejected samples over all reasons */
  public long samplesRejected() {
    long n = 0;
    for (long c : rejectedByReason.values()) {
      n += c;
    }
    return n;
  }
}
