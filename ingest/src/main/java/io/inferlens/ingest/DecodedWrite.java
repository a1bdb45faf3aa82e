package io.inferlens.ingest;

import io.inferlens.storage.MetricMetadata;
import io.inferlens.storage.SeriesWrite;
import java.util.List;
import java.util.Map;

/**
 * The result of decoding and validating one remote write request, before storage.
 *
 * <p>A series with a problem in its labels is rejected whole: all its samples count as rejected
 * under the reason of its first problem, and it is absent from {@link #valid()}. Native histogram
 * samples are refused (counted under {@code native_histogram}) while the float samples of the same
 * series stay valid. A sample whose timestamp is outside the accepted range (older than the
 * retention horizon, too far in the future) is refused alone, and its series keeps its other
 * samples in {@link #valid()}. A metric metadata entry that breaks a rule is refused alone, the
 * other entries kept in {@link #metadata()}. Everything valid should be stored (docs/DESIGN.md
 * §2); the request as a whole then answers 400.
 *
 * @param valid series to append, with canonical label sets and at least one sample each; the
 *     caller owns the list and the arrays
 * @param firstError the full message of the first series with refused samples, naming it and
 *     the numbers, or null when nothing was refused
 * @param seriesRejected number of series with refused samples (whole or some), ≥ 0 (0 iff
 *     {@code firstError} is null)
 * @param seriesCount number of TimeSeries messages in the request, including rejected ones and
 *     ones without samples
 * @param samplesAccepted samples in {@code valid}, ≥ 0
 * @param rejectedByReason rejected sample counts keyed by {@link RejectReason#key()}; only
 *     reasons that occurred are present; unmodifiable
 * @param metadataCount number of MetricMetadata messages in the request, valid or not, ≥ 0
 * @param metadata the valid metadata entries, in request order, to store; unmodifiable
 * @param metadataRejected metadata entries refused (empty family name, not UTF-8, over a bound of
 *     {@link MetricMetadata}), ≥ 0; {@code metadata.size() + metadataRejected == metadataCount}
 * @param metadataError the message of the first refused entry, naming it, the field and the
 *     limit; null iff {@code metadataRejected} is 0
 * @param haCluster the value of the HA cluster label ({@link HaConfig#clusterLabel()}) on the
 *     request's first TimeSeries, valid or not, "" when it has none; null when HA deduplication
 *     is off or the request has no TimeSeries
 * @param haReplica the value of the HA replica label on the same series, "" when it has none;
 *     null exactly when {@code haCluster} is
 */
public record DecodedWrite(
    List<SeriesWrite> valid,
    String firstError,
    long seriesRejected,
    long seriesCount,
    long samplesAccepted,
    Map<String, Long> rejectedByReason,
    int metadataCount,
    List<MetricMetadata> metadata,
    long metadataRejected,
    String metadataError,
    String haCluster,
    String haReplica) {

  /** Makes the collections unmodifiable. */
  public DecodedWrite {
    valid = List.copyOf(valid);
    rejectedByReason = Map.copyOf(rejectedByReason);
    metadata = List.copyOf(metadata);
  }

  /** @return whether anything was refused: a whole series, some of its samples, or metadata */
  public boolean hasErrors() {
    return firstError != null || metadataError != null;
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
