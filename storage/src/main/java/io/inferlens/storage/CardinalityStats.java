package io.inferlens.storage;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * Computes {@link TsdbStatus}: one pass over the postings of the active series
 * ({@link SeriesIndex#visitActive}) feeding four bounded top lists, as Prometheus's
 * {@code MemPostings.Stats(label, limit)} ({@code tsdb/index/postings.go}) does over the head's
 * postings with its max-heaps. Cost: every posting entry once (series × labels) and one
 * {@code name=value} string per pair that enters or ties the pair list; memory: the lists and one
 * small record per label name.
 *
 * <p>Order of each list: value descending, then name ascending (Prometheus leaves ties in map
 * order; a fixed order makes answers comparable).
 */
final class CardinalityStats {

  private final StoreCore core;

  CardinalityStats(StoreCore core) {
    this.core = core;
  }

  /** Per label name: distinct values and the sum of their UTF-8 bytes. */
  private static final class NameTotals {
    long values;
    long bytes;
  }

  /**
   * @param limit entries per list, ≥ 1
   * @return the statistics of the active series now
   * @throws IllegalArgumentException if {@code limit} &lt; 1
   */
  TsdbStatus compute(int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be a positive number");
    }
    TopK metrics = new TopK(limit);
    TopK pairs = new TopK(limit);
    Map<String, NameTotals> names = new HashMap<>();
    long[] numLabelPairs = new long[1];
    core.index.visitActive((name, value, series) -> {
      numLabelPairs[0]++;
      NameTotals t = names.computeIfAbsent(name, n -> new NameTotals());
      t.values++;
      t.bytes += utf8Length(value);
      if (LabelSet.METRIC_NAME.equals(name)) {
        metrics.offer(series, value, null);
      }
      pairs.offer(series, name, value);
    });
    TopK valueCounts = new TopK(limit);
    TopK memory = new TopK(limit);
    for (Map.Entry<String, NameTotals> e : names.entrySet()) {
      valueCounts.offer(e.getValue().values, e.getKey(), null);
      memory.offer(e.getValue().bytes, e.getKey(), null);
    }
    return new TsdbStatus(headStats(numLabelPairs[0]), metrics.sorted(), valueCounts.sorted(),
        memory.sorted(), pairs.sorted());
  }

  private TsdbStatus.HeadStats headStats(long numLabelPairs) {
    long buffers = 0;
    SeriesRef[] slice = new SeriesRef[8_192];
    for (int from = 0, n; (n = core.index.slice(from, slice)) > 0; from += n) {
      for (int i = 0; i < n; i++) {
        // A racy read of the reference: a count for a status page, not a decision.
        if (slice[i] != null && slice[i].head != null) {
          buffers++;
        }
      }
    }
    boolean empty = core.headSamples == 0 && core.flushingSamples == 0;
    long minTime = empty ? Long.MAX_VALUE : Math.min(core.headMinTs, core.flushingMinTs);
    long maxTime = empty ? Long.MIN_VALUE : core.maxSeenMs;
    return new TsdbStatus.HeadStats(core.active.count(), numLabelPairs, buffers, minTime,
        maxTime);
  }

  /** @return the UTF-8 length of {@code s} in bytes, Go's {@code len(string)} */
  static int utf8Length(String s) {
    int n = s.length();
    for (int i = 0; i < s.length(); i++) {
      if (s.charAt(i) >= 0x80) {
        return s.getBytes(StandardCharsets.UTF_8).length;
      }
    }
    return n;
  }

  /** The {@code k} largest entries by value, then smallest name; a min-heap of the kept ones. */
  static final class TopK {
    /** The weakest kept entry first: smallest value, then largest name. */
    private static final Comparator<TsdbStatus.Stat> WEAKEST_FIRST =
        Comparator.comparingLong(TsdbStatus.Stat::value)
            .thenComparing(TsdbStatus.Stat::name, Comparator.reverseOrder());

    private final int k;
    private final PriorityQueue<TsdbStatus.Stat> heap;

    TopK(int k) {
      this.k = k;
      this.heap = new PriorityQueue<>(Math.min(k, 1024) + 1, WEAKEST_FIRST);
    }

    /**
     * Offers an entry named {@code a}, or {@code a=b} when {@code b} is not null; the name is
     * built only when the entry can be kept.
     */
    void offer(long value, String a, String b) {
      if (heap.size() >= k) {
        TsdbStatus.Stat weakest = heap.peek();
        if (value < weakest.value()) {
          return;
        }
        String name = b == null ? a : a + "=" + b;
        if (value == weakest.value() && name.compareTo(weakest.name()) >= 0) {
          return;
        }
        heap.poll();
        heap.add(new TsdbStatus.Stat(name, value));
        return;
      }
      heap.add(new TsdbStatus.Stat(b == null ? a : a + "=" + b, value));
    }

    /** @return the kept entries, value descending, then name ascending */
    List<TsdbStatus.Stat> sorted() {
      List<TsdbStatus.Stat> out = new ArrayList<>(heap);
      out.sort(WEAKEST_FIRST.reversed());
      return out;
    }
  }
}
