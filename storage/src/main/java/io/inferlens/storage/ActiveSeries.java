package io.inferlens.storage;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Counts the active series, in all and per metric name, and decides whether a series may become
 * active under the {@link SeriesLimits} (whose Javadoc defines "active"). One counter per metric
 * name, changed only when a series becomes active or inactive, so the append path pays nothing
 * for samples of active series and one map lookup per series that becomes active.
 *
 * <p>An append call reserves its activations ({@link #admit}) while it collects its samples,
 * and {@link #commitCall} makes them count once its RocksDB write returned; {@link #endCall}
 * drops the reservations of a call that failed. {@link #sweep} (the background thread, about
 * once a minute) makes series idle for longer than {@link SeriesLimits#ACTIVE_WINDOW_MS}
 * inactive.
 *
 * <p>Thread safety: every method runs under the store's append lock except {@link #count},
 * which reads a volatile, and {@link #sweep}, which takes the lock itself per slice of series.
 */
final class ActiveSeries {

  /** Series examined per append-lock hold in {@link #sweep}: a few milliseconds at most. */
  private static final int SWEEP_SLICE = 8_192;

  /** Least time between two sweeps, ms: a series turns inactive at most this late. */
  static final long SWEEP_PERIOD_MS = 60_000L;

  private final SeriesLimits limits;
  private final SeriesIndex index;
  private final StoreLocks.RankedLock appendLock;
  /** Active series per metric name ("" for a series without one); guarded by the append lock. */
  private final Map<String, MetricCount> byMetric = new HashMap<>();
  /** Counters with reservations of the running call; guarded by the append lock. */
  private final List<MetricCount> touched = new ArrayList<>();
  /** Active series in all; written under the append lock. */
  private volatile long active;
  /** Activations reserved by the running call; guarded by the append lock. */
  private long reserved;
  /** Clock ms of the last sweep; used by the background thread only. */
  private long lastSweepMs = Long.MIN_VALUE;

  /**
   * The active series of one metric name, the running call's reservations, and how many times
   * {@link SeriesLimits.Kind#MAX_SERIES_PER_METRIC} refused a series of it while this counter
   * lived (a counter lives while the metric has active series, so the limit can only refuse then).
   */
  private static final class MetricCount {
    int active;
    int reserved;
    long refused;
  }

  ActiveSeries(SeriesLimits limits, SeriesIndex index, StoreLocks.RankedLock appendLock) {
    this.limits = limits;
    this.index = index;
    this.appendLock = appendLock;
  }

  /** @return the limits enforced */
  SeriesLimits limits() {
    return limits;
  }

  /** @return the active series now, ≥ 0 */
  long count() {
    return active;
  }

  /**
   * Reserves the activation of a series that is not active (new, or idle past the window) for
   * the running call, unless a limit refuses it. Under the append lock.
   *
   * @param labels the series
   * @return null when admitted (then {@link #commitCall} or {@link #endCall} must follow), else
   *     the limit that refuses it; the global limit is checked first
   */
  SeriesLimits.Kind admit(LabelSet labels) {
    long max = limits.maxSeries();
    if (max > 0 && active + reserved >= max) {
      return SeriesLimits.Kind.MAX_SERIES;
    }
    String metric = metricKey(labels);
    MetricCount c = byMetric.get(metric);
    long perMetric = limits.maxSeriesPerMetric();
    if (perMetric > 0 && c != null && (long) c.active + c.reserved >= perMetric) {
      c.refused++;
      return SeriesLimits.Kind.MAX_SERIES_PER_METRIC;
    }
    if (c == null) {
      c = new MetricCount();
      byMetric.put(metric, c);
    }
    if (c.reserved == 0) {
      touched.add(c);
    }
    c.reserved++;
    reserved++;
    return null;
  }

  /**
   * A copy of the per-metric counters, taken under the append lock: a map copy of one entry per
   * metric name with active series (microseconds for thousands of names), for the cardinality
   * sample ({@link CardinalitySampler}).
   *
   * @return metric name ("" for series without one) → {active series, per-metric limit refusals
   *     while the counter lived}; refusals are counted once per refused series per append call
   */
  Map<String, long[]> metricCounts() {
    appendLock.lock();
    try {
      Map<String, long[]> out = new HashMap<>(byMetric.size() * 2);
      for (Map.Entry<String, MetricCount> e : byMetric.entrySet()) {
        out.put(e.getKey(), new long[] {e.getValue().active, e.getValue().refused});
      }
      return out;
    } finally {
      appendLock.unlock();
    }
  }

  /**
   * @param kind a limit
   * @param labels a series it refused
   * @return the active series that limit counts for {@code labels}, the running call's
   *     reservations included: all, or its metric's
   */
  long activeFor(SeriesLimits.Kind kind, LabelSet labels) {
    if (kind == SeriesLimits.Kind.MAX_SERIES) {
      return active + reserved;
    }
    MetricCount c = byMetric.get(metricKey(labels));
    return c == null ? 0 : (long) c.active + c.reserved;
  }

  /**
   * Makes the running call's reservations count: its write is durable. The caller sets
   * {@link SeriesRef#active} on each admitted series. Under the append lock.
   */
  void commitCall() {
    for (MetricCount c : touched) {
      c.active += c.reserved;
      c.reserved = 0;
    }
    touched.clear();
    active += reserved;
    reserved = 0;
  }

  /** Drops the running call's reservations not committed (a failed write). Under the lock. */
  void endCall() {
    for (MetricCount c : touched) {
      c.reserved = 0;
    }
    touched.clear();
    reserved = 0;
  }

  /**
   * Counts the series with samples in the replayed head as active, appended at {@code nowMs}:
   * at open, before the store is shared, so without the lock's rank checks mattering.
   *
   * @param nowMs the clock at open, ms
   * @return how many series were made active
   */
  long loadFromHead(long nowMs) {
    long n = 0;
    appendLock.lock();
    try {
      for (SeriesRef ref : index.all()) {
        if (ref.head != null && !ref.active) {
          ref.active = true;
          ref.lastAppendMs = nowMs;
          byMetric.computeIfAbsent(metricKey(ref.labels), k -> new MetricCount()).active++;
          n++;
        }
      }
      active += n;
    } finally {
      appendLock.unlock();
    }
    return n;
  }

  /**
   * Makes every active series whose last append is older than {@code nowMs -}
   * {@link SeriesLimits#ACTIVE_WINDOW_MS} inactive, at most once per {@link #SWEEP_PERIOD_MS}
   * unless {@code force}. Takes the append lock per slice of {@value #SWEEP_SLICE} series, so
   * appends wait a few milliseconds at most. Called by the background thread only.
   *
   * @param nowMs the clock now, ms
   * @param force sweep even if the last sweep was less than a period ago (tests)
   * @return how many series became inactive
   */
  long sweep(long nowMs, boolean force) {
    if (!force && lastSweepMs != Long.MIN_VALUE && nowMs - lastSweepMs < SWEEP_PERIOD_MS) {
      return 0;
    }
    lastSweepMs = nowMs;
    long cutoff = StoreCore.saturatedSubtract(nowMs, SeriesLimits.ACTIVE_WINDOW_MS);
    SeriesRef[] slice = new SeriesRef[SWEEP_SLICE];
    long deactivated = 0;
    int from = 0;
    while (true) {
      int n = index.slice(from, slice);
      if (n == 0) {
        break;
      }
      appendLock.lock();
      try {
        for (int i = 0; i < n; i++) {
          SeriesRef ref = slice[i];
          if (ref != null && ref.active && ref.lastAppendMs < cutoff) {
            ref.active = false;
            MetricCount c = byMetric.get(metricKey(ref.labels));
            if (c != null) {
              c.active--;
            }
            active--;
            deactivated++;
          }
        }
      } finally {
        appendLock.unlock();
      }
      from += n;
    }
    appendLock.lock();
    try {
      dropEmptyCounters();
    } finally {
      appendLock.unlock();
    }
    return deactivated;
  }

  /** Removes counters of metric names without active series or reservations; under the lock. */
  private void dropEmptyCounters() {
    for (Iterator<MetricCount> it = byMetric.values().iterator(); it.hasNext(); ) {
      MetricCount c = it.next();
      if (c.active == 0 && c.reserved == 0) {
        it.remove();
      }
    }
  }

  private static String metricKey(LabelSet labels) {
    String m = labels.metricName();
    return m == null ? "" : m;
  }
}
