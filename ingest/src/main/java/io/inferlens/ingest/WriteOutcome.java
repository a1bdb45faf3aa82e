package io.inferlens.ingest;

import java.util.Map;

/**
 * What a remote write request did, for the api module to turn into a response and metrics.
 *
 * <p>{@code ok == false} means the request must be answered 400 (do not retry) with
 * {@code errorMessage}; the valid series and metadata of the same request are nevertheless
 * already durable (docs/DESIGN.md §2). {@code ok == true} means 2xx: every sample was appended or
 * was an exact duplicate, and every metadata entry is stored; or, when {@code deduplicated} is not
 * null, the request came from an HA replica that is not its cluster's elected one and was
 * dropped whole (Mimir answers such requests 202).
 *
 * @param ok whether no series, sample or metadata entry was rejected
 * @param errorMessage null when {@code ok}; otherwise the first error in full (a series' before
 *     a metadata entry's; a decoding error before a series limit's refusal before a conflict),
 *     naming the series or entry and the numbers, followed by "; also refused: N more series,
 *     S new series (S samples) over --limits.max-series=V, the first of metric "x", M more
 *     samples conflicting with stored samples, K metadata entries (counts by reason: …)" when
 *     there were more
 * @param samplesAppended samples newly stored (durable), ≥ 0
 * @param samplesDuplicate samples identical to stored ones (idempotent retries), ≥ 0
 * @param seriesCreated series seen for the first time by the store, ≥ 0
 * @param rejectedByReason rejected sample counts keyed by {@link RejectReason#key()} (including
 *     {@code conflict}, {@code series_limit} and {@code series_per_metric_limit} for the store's
 *     refusals); only reasons that occurred; unmodifiable
 * @param metadataCount MetricMetadata messages in the request, valid or not, ≥ 0
 * @param metadataRejected metadata entries refused (they make {@code ok} false), ≥ 0
 * @param metadataFamiliesChanged metric families whose stored metadata changed, ≥ 0; 0 when the
 *     request only re-sent entries the store holds (then nothing was written)
 * @param deduplicated the request dropped as a non-elected HA replica's, or null (stored as
 *     the other components say)
 */
public record WriteOutcome(
    boolean ok,
    String errorMessage,
    long samplesAppended,
    long samplesDuplicate,
    long seriesCreated,
    Map<String, Long> rejectedByReason,
    int metadataCount,
    long metadataRejected,
    int metadataFamiliesChanged,
    Deduplicated deduplicated) {

  /**
   * A request dropped whole because another replica of its HA cluster is elected
   * ({@link HaTracker}): none of its samples or metadata was stored.
   *
   * @param cluster the cluster label's value
   * @param replica the replica label's value of the request
   * @param elected the cluster's elected replica
   * @param samples the request's samples (valid or not, native histogram samples included), ≥ 0
   */
  public record Deduplicated(String cluster, String replica, String elected, long samples) {}

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
