package io.inferlens.analysis.target;

import io.inferlens.analysis.catalog.MetricSource;
import io.inferlens.analysis.catalog.Signal;
import io.inferlens.analysis.catalog.SignalCatalog;
import io.inferlens.analysis.catalog.SourceKind;
import io.inferlens.analysis.catalog.Stack;
import io.inferlens.storage.LabelSet;
import io.inferlens.storage.Matcher;
import io.inferlens.storage.StorageException;
import io.inferlens.storage.Querier;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;

/**
 * Binds catalog {@link Signal}s to the series a {@link Target} actually has in a time range.
 *
 * <p>Rule: the catalog's sources for the signal are tried in order and the first one whose series
 * exist for the target in {@code [startMs, endMs]} wins — every series name of the source must
 * have a series (histogram {@code _bucket}, {@code _sum}, {@code _count}; the numerator and each
 * denominator). A {@link MetricSource#deprecated() deprecated} source is never chosen while its
 * {@link MetricSource#replacedBy() replacement} has series too: vLLM 0.10 exposes both
 * {@code vllm:kv_cache_usage_perc} and the alias {@code vllm:gpu_cache_usage_perc}, and exactly one,
 * the new name, is used, whatever the source order (a user catalog may prepend the old name).
 * But when the target also has series of the deprecated source from before the first sample of
 * its replacement (the same instance and model upgraded in place, e.g. vLLM 0.6 V0, then 0.10),
 * the deprecated source is kept as the {@link ResolvedSignal#fallback() fallback}, read where the
 * replacement has no value, so the older part of the range keeps its KV-cache usage and
 * inter-token latency. That first sample is found exactly, by bisection of {@code series}
 * look-ups, and only when the deprecated source has series at all.
 *
 * <p>Scope per stack role: engine and gateway series match the target's grouping labels (through
 * the stack's label aliases, e.g. Triton {@code model}); GPU and upstream series are joined as
 * described in {@link TargetConfig}. For GPU series the first join that finds series is used:
 * each of {@link TargetConfig#gpuHostLabels()} equal to the target host, then the series' own
 * host label matching {@code host(:port)?}.
 *
 * <p>Thread safety: immutable; concurrent calls are safe as far as the store's reads are.
 */
public final class SignalResolver {

  private final SignalCatalog catalog;
  private final TargetConfig config;

  /**
   * @param catalog the signal catalog
   * @param config grouping and join labels
   */
  public SignalResolver(SignalCatalog catalog, TargetConfig config) {
    this.catalog = Objects.requireNonNull(catalog, "catalog");
    this.config = Objects.requireNonNull(config, "config");
  }

  /**
   * Resolves one signal for a target.
   *
   * @param store the store to look series up in
   * @param target the target, with the grouping labels of this resolver's config
   * @param signal the signal
   * @param startMs range start, milliseconds since the epoch, inclusive
   * @param endMs range end, milliseconds, inclusive; {@code endMs < startMs} finds nothing
   * @return the chosen source and its matchers, or empty when no source has series for the target
   *     in the range (the signal is "unknown" for it)
   * @throws StorageException if the store fails or is closed
   */
  public Optional<ResolvedSignal> resolve(
      Querier store, Target target, Signal signal, long startMs, long endMs)
      throws StorageException {
    List<MetricSource> sources = catalog.sources(signal);
    for (MetricSource src : sources) {
      Optional<List<Matcher>> scope = scope(store, target, src, startMs, endMs);
      if (scope.isEmpty()) {
        continue;
      }
      MetricSource chosen = src;
      List<Matcher> chosenScope = scope.get();
      if (src.deprecated() && !src.replacedBy().isEmpty()) {
        for (MetricSource repl : sources) {
          if (repl != src && repl.name().equals(src.replacedBy())) {
            Optional<List<Matcher>> replScope = scope(store, target, repl, startMs, endMs);
            if (replScope.isPresent()) {
              chosen = repl;
              chosenScope = replScope.get();
              break;
            }
          }
        }
      }
      ResolvedSignal fallback = null;
      for (MetricSource old : sources) {
        if (fallback == null && old != chosen && old.deprecated()
            && old.replacedBy().equals(chosen.name())) {
          fallback = olderSeries(store, target, signal, old, chosen, chosenScope, startMs, endMs);
        }
      }
      return Optional.of(new ResolvedSignal(signal, chosen, chosenScope, fallback));
    }
    return Optional.empty();
  }

  /**
   * The deprecated source {@code old} bound as a fallback when the target has its series before
   * the first sample of its replacement {@code repl} in {@code [startMs, endMs]}; else null.
   */
  private ResolvedSignal olderSeries(Querier store, Target target, Signal signal,
      MetricSource old, MetricSource repl, List<Matcher> replScope, long startMs, long endMs)
      throws StorageException {
    if (scope(store, target, old, startMs, endMs).isEmpty()) {
      return null; // the common case: no old name at all, no bisection
    }
    long first = firstSampleMs(store, repl, replScope, startMs, endMs);
    if (first <= startMs) {
      return null;
    }
    Optional<List<Matcher>> oldScope = scope(store, target, old, startMs, first - 1);
    return oldScope.map(sc -> new ResolvedSignal(signal, old, sc)).orElse(null);
  }

  /**
   * The time of the first sample of {@code src} under {@code scope} in {@code [startMs, endMs]}:
   * the smallest t with a series in {@code [startMs, t]}, by bisection (about 31 look-ups over
   * 14 days); {@code endMs + 1} when there is none. Exact, so an alias scraped with its
   * replacement (the same timestamps) never counts as older.
   */
  private static long firstSampleMs(Querier store, MetricSource src, List<Matcher> scope,
      long startMs, long endMs) throws StorageException {
    List<Matcher> m = new ArrayList<>(scope.size() + 1);
    m.add(Matcher.eq(LabelSet.METRIC_NAME,
        src.kind() == SourceKind.HISTOGRAM ? src.countName() : src.name()));
    m.addAll(scope);
    if (store.series(m, startMs, endMs).isEmpty()) {
      return endMs + 1;
    }
    long lo = startMs;
    long hi = endMs;
    while (lo < hi) {
      long mid = lo + (hi - lo) / 2;
      if (store.series(m, startMs, mid).isEmpty()) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return hi;
  }

  /**
   * Resolves every signal for a target.
   *
   * @param store the store
   * @param target the target
   * @param startMs range start, milliseconds, inclusive
   * @param endMs range end, milliseconds, inclusive
   * @return resolved signals in {@link Signal} order; signals without series are absent.
   *     Unmodifiable.
   * @throws StorageException if the store fails or is closed
   */
  public Map<Signal, ResolvedSignal> resolveAll(
      Querier store, Target target, long startMs, long endMs) throws StorageException {
    EnumMap<Signal, ResolvedSignal> out = new EnumMap<>(Signal.class);
    for (Signal s : Signal.values()) {
      Optional<ResolvedSignal> r = resolve(store, target, s, startMs, endMs);
      r.ifPresent(v -> out.put(s, v));
    }
    return Collections.unmodifiableMap(out);
  }

  /** The scope matchers under which every series name of {@code src} has series, if any. */
  private Optional<List<Matcher>> scope(
      Querier store, Target target, MetricSource src, long startMs, long endMs)
      throws StorageException {
    Stack stack = catalog.stack(src.stack());
    for (List<Matcher> candidate : joinCandidates(target, stack)) {
      List<Matcher> scope = new ArrayList<>(candidate);
      src.matchers().forEach((k, v) -> scope.add(Matcher.eq(k, v)));
      if (allPresent(store, src, scope, startMs, endMs)) {
        return Optional.of(scope);
      }
    }
    return Optional.empty();
  }

  /** Alternative ways to scope a stack's series to the target, most specific first. */
  private List<List<Matcher>> joinCandidates(Target target, Stack stack) {
    List<List<Matcher>> out = new ArrayList<>();
    String host = target.host(config.hostLabel());
    switch (stack.role()) {
      case ENGINE:
        out.add(labelJoin(target, stack, List.of()));
        break;
      case GATEWAY:
        out.add(labelJoin(target, stack, stack.joinOn()));
        break;
      case GPU:
        if (!host.isEmpty()) {
          for (String label : config.gpuHostLabels()) {
            out.add(List.of(Matcher.eq(label, host)));
          }
          out.add(List.of(Matcher.re(config.hostLabel(), hostRegex(host))));
        }
        break;
      case UPSTREAM:
        TreeSet<String> groups = new TreeSet<>(LabelSet.UTF8_ORDER);
        String id = target.id();
        config.consumerGroupTargets().forEach((group, to) -> {
          if (to.equals(id) || (!host.isEmpty() && to.equals(host))) {
            groups.add(group);
          }
        });
        if (!groups.isEmpty()) {
          out.add(List.of(groups.size() == 1
              ? Matcher.eq(config.consumerGroupLabel(), groups.first())
              : Matcher.re(config.consumerGroupLabel(), alternation(groups))));
        } else if (!host.isEmpty()) {
          out.add(List.of(Matcher.re(config.hostLabel(), hostRegex(host))));
        }
        break;
      default:
        throw new AssertionError("unhandled stack role " + stack.role());
    }
    return out;
  }

  private List<Matcher> labelJoin(Target target, Stack stack, List<String> only) {
    List<Matcher> out = new ArrayList<>();
    for (Map.Entry<String, String> e : target.labels().entrySet()) {
      if (only.isEmpty() || only.contains(e.getKey())) {
        out.add(Matcher.eq(stack.labelFor(e.getKey()), e.getValue()));
      }
    }
    return out;
  }

  private static boolean allPresent(
      Querier store, MetricSource src, List<Matcher> scope, long startMs, long endMs)
      throws StorageException {
    for (String name : src.seriesNames()) {
      List<Matcher> m = new ArrayList<>(scope.size() + 1);
      m.add(Matcher.eq(LabelSet.METRIC_NAME, name));
      m.addAll(scope);
      if (store.series(m, startMs, endMs).isEmpty()) {
        return false;
      }
    }
    return true;
  }

  /** A regex matching {@code host}, {@code host:port}, {@code [host]} and {@code [host]:port}. */
  static String hostRegex(String host) {
    String h = quote(host);
    return "(?:" + h + "|\\[" + h + "\\])(?::[0-9]+)?";
  }

  private static String alternation(Iterable<String> values) {
    StringBuilder sb = new StringBuilder();
    for (String v : values) {
      if (sb.length() > 0) {
        sb.append('|');
      }
      sb.append(quote(v));
    }
    return sb.toString();
  }

  /** Escapes regex metacharacters with backslashes, valid in both Java regex and RE2. */
  static String quote(String literal) {
    StringBuilder sb = new StringBuilder(literal.length() + 8);
    for (int i = 0; i < literal.length(); i++) {
      char c = literal.charAt(i);
      if ("\\.+*?()|[]{}^$".indexOf(c) >= 0) {
        sb.append('\\');
      }
      sb.append(c);
    }
    return sb.toString();
  }
}
