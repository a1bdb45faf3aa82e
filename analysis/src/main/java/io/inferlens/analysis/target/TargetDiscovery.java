package io.inferlens.analysis.target;

import io.inferlens.analysis.catalog.SignalCatalog;
import io.inferlens.analysis.catalog.Stack;
import io.inferlens.storage.LabelSet;
import io.inferlens.storage.Matcher;
import io.inferlens.storage.Series;
import io.inferlens.storage.StorageException;
import io.inferlens.storage.Querier;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Finds the {@link Target}s in the store: one per distinct tuple of grouping-label values among
 * engine series, i.e. series whose name is read by a source of an
 * {@link io.inferlens.analysis.catalog.StackRole#ENGINE ENGINE} stack of the catalog (vLLM, SGLang,
 * TGI, Triton, llama.cpp, ...). GPU, Kafka and other series never form targets.
 *
 * <p>A grouping label the engine does not carry gives the empty value (TGI, llama.cpp: no
 * {@code model_name}); a stack's label aliases apply (Triton's {@code model} fills
 * {@code model_name}). Histogram {@code _bucket} series are not read: their {@code _count} carries
 * the same labels.
 *
 * <p>Thread safety: immutable.
 */
public final class TargetDiscovery {

  private final SignalCatalog catalog;

  /** @param catalog the catalog whose engine stacks define targets */
  public TargetDiscovery(SignalCatalog catalog) {
    this.catalog = Objects.requireNonNull(catalog, "catalog");
  }

  /**
   * Lists the targets with engine samples in a range.
   *
   * @param store the store
   * @param config grouping labels and their order
   * @param startMs range start, milliseconds since the epoch, inclusive
   * @param endMs range end, milliseconds, inclusive
   * @return distinct targets ordered by {@link Target#id()}; empty when no engine series exist
   * @throws StorageException if the store fails or is closed
   */
  public List<Target> discover(Querier store, TargetConfig config, long startMs, long endMs)
      throws StorageException {
    TreeMap<String, Target> byId = new TreeMap<>();
    for (Map.Entry<String, Stack> e : engineNames().entrySet()) {
      List<LabelSet> found =
          store.series(List.of(Matcher.eq(LabelSet.METRIC_NAME, e.getKey())), startMs, endMs);
      for (LabelSet ls : found) {
        Target t = targetOf(ls, e.getValue(), config.groupingLabels());
        byId.putIfAbsent(t.id(), t);
      }
    }
    return new ArrayList<>(byId.values());
  }

  /**
   * The models (and model versions) an engine instance served over a range, each with the time
   * of its first and last sample.
   *
   * @param store the store
   * @param config supplies {@link TargetConfig#modelLabel()} and {@link TargetConfig#versionLabel()}
   * @param instance the instance: a target whose model label, if present, is ignored (e.g.
   *     {@code job}, {@code instance})
   * @param startMs range start, milliseconds, inclusive
   * @param endMs range end, milliseconds, inclusive
   * @return one span per distinct (model, version), ordered by first then last sample time, then
   *     model and version; empty when the instance has no engine samples in range
   * @throws StorageException if the store fails or is closed
   */
  public List<VersionSpan> versionHistory(
      Querier store, TargetConfig config, Target instance, long startMs, long endMs)
      throws StorageException {
    Target scope = instance.without(config.modelLabel());
    Map<List<String>, long[]> spans = new LinkedHashMap<>();
    for (Map.Entry<String, Stack> e : engineNames().entrySet()) {
      Stack stack = e.getValue();
      List<Matcher> m = new ArrayList<>();
      m.add(Matcher.eq(LabelSet.METRIC_NAME, e.getKey()));
      scope.labels().forEach((k, v) -> m.add(Matcher.eq(stack.labelFor(k), v)));
      for (Series s : store.select(m, startMs, endMs)) {
        if (s.size() == 0) {
          continue;
        }
        List<String> key = List.of(s.labels().get(stack.labelFor(config.modelLabel())),
            s.labels().get(config.versionLabel()));
        long first = s.timestampsMs()[0];
        long last = s.timestampsMs()[s.size() - 1];
        long[] span = spans.computeIfAbsent(key, k -> new long[] {Long.MAX_VALUE, Long.MIN_VALUE});
        span[0] = Math.min(span[0], first);
        span[1] = Math.max(span[1], last);
      }
    }
    List<VersionSpan> out = new ArrayList<>();
    spans.forEach((k, v) -> out.add(new VersionSpan(k.get(0), k.get(1), v[0], v[1])));
    out.sort(Comparator.comparingLong(VersionSpan::firstMs)
        .thenComparingLong(VersionSpan::lastMs)
        .thenComparing(VersionSpan::model)
        .thenComparing(VersionSpan::version));
    return out;
  }

  /** Engine series names to scan, without histogram buckets. */
  private Map<String, Stack> engineNames() {
    Map<String, Stack> out = new LinkedHashMap<>();
    catalog.engineSeriesNames().forEach((name, stack) -> {
      if (!name.endsWith("_bucket")) {
        out.put(name, stack);
      }
    });
    return out;
  }

  private static Target targetOf(LabelSet ls, Stack stack, List<String> grouping) {
    Map<String, String> m = new LinkedHashMap<>();
    for (String label : grouping) {
      m.put(label, ls.get(stack.labelFor(label)));
    }
    return new Target(m);
  }
}
