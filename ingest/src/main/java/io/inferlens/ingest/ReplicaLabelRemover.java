package io.inferlens.ingest;

import io.inferlens.storage.LabelSet;
import io.inferlens.storage.SeriesWrite;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Removes the HA replica label from the series of an accepted HA request, so both replicas'
 * series are one series (Mimir removes it for the same reason, {@code RemoveLabel} in its
 * HA deduplication). A label set from the decoder's {@link LabelSetCache} is the same object
 * request after request, and so is its label set without the replica label from here: the store
 * then finds its series through the label set's remembered index entry instead of hashing and
 * comparing a new label set on every request.
 *
 * <p>Bounded: at most {@link #MAX_ENTRIES} label sets; when full it is emptied and refills (a
 * miss costs one array copy, never a wrong result).
 *
 * <p>Thread safety: thread safe.
 */
final class ReplicaLabelRemover {

  /** Most label sets remembered, 4 × the decoder cache's 16,384 series. */
  static final int MAX_ENTRIES = 65_536;

  private final String replicaLabel;
  private final Map<LabelSet, LabelSet> without = new ConcurrentHashMap<>();

  /** @param replicaLabel the label to remove */
  ReplicaLabelRemover(String replicaLabel) {
    this.replicaLabel = replicaLabel;
  }

  /**
   * @param series series with canonical label sets; not modified
   * @return the same series with the replica label removed from each that has it (the sample
   *     arrays are shared); {@code series} itself when none has it
   */
  List<SeriesWrite> apply(List<SeriesWrite> series) {
    List<SeriesWrite> out = null;
    for (int i = 0; i < series.size(); i++) {
      SeriesWrite s = series.get(i);
      LabelSet labels = without(s.labels());
      if (labels != s.labels() && out == null) {
        out = new ArrayList<>(series.size());
        out.addAll(series.subList(0, i));
      }
      if (out != null) {
        out.add(labels == s.labels() ? s
            : new SeriesWrite(labels, s.timestampsMs(), s.valueBits(), s.count()));
      }
    }
    return out == null ? series : out;
  }

  /** @return {@code labels} without the replica label; {@code labels} when it has none */
  LabelSet without(LabelSet labels) {
    LabelSet cached = without.get(labels);
    if (cached != null) {
      return cached;
    }
    LabelSet stripped = labels.without(replicaLabel);
    if (without.size() >= MAX_ENTRIES) {
      without.clear();
    }
    without.put(labels, stripped);
    return stripped;
  }
}
