package io.inferlens.storage;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The in-memory series index: label set ↔ id and postings. Rebuilt from the
 * {@code series_by_id} column family when the store opens; updated only after the RocksDB write
 * that created a series returned, so every series found here is durable.
 *
 * <p>Thread safety: thread safe; lookups share a read lock, additions take the write lock.
 */
final class SeriesIndex {

  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
  /**
   * Series by label set: open addressing on {@link LabelSet#hashCode()} (Murmur3-mixed), linear
   * probing, a power-of-two length at most half full; nothing is ever removed. About 1 MB at
   * 100,000 series where a {@code HashMap} took 4 MB in nodes and table.
   */
  private SeriesRef[] byLabels = new SeriesRef[1024];
  /**
   * Series by {@code id - Keys.FIRST_SERIES_ID}: ids are handed out densely and never removed, so
   * an array (4 bytes a series) replaces a map of boxed ids (about 50 bytes a series).
   */
  private SeriesRef[] byId = new SeriesRef[1024];
  private int size;
  /** One past the highest slot of {@link #byId} in use. */
  private int slotsUsed;
  private final Postings postings = new Postings();

  /** @return the series with exactly these labels, or null */
  SeriesRef get(LabelSet labels) {
    // Ingest hands the same LabelSet object for a series every scrape (its label-set cache), so
    // remembering the ref on it skips hashing and comparing ten-odd strings per sample batch.
    SeriesRef remembered = labels.indexRef;
    if (remembered != null && remembered.owner == this) {
      return remembered;
    }
    SeriesRef found;
    lock.readLock().lock();
    try {
      found = findByLabels(labels);
    } finally {
      lock.readLock().unlock();
    }
    if (found != null) {
      labels.indexRef = found;
    }
    return found;
  }

  /** @return the series with this id, or null */
  SeriesRef byId(long id) {
    lock.readLock().lock();
    try {
      return lookup(id);
    } finally {
      lock.readLock().unlock();
    }
  }

  /**
   * Registers a series. Ids must be added in increasing order.
   *
   * @throws IllegalStateException if the labels or id are already present (a bug)
   */
  void add(SeriesRef ref) {
    lock.writeLock().lock();
    try {
      long slot = ref.id - Keys.FIRST_SERIES_ID;
      if (slot < 0 || slot >= Integer.MAX_VALUE - 8) {
        throw new IllegalStateException("series id " + ref.id + " is outside the index's range");
      }
      if (findByLabels(ref.labels) != null || lookup(ref.id) != null) {
        throw new IllegalStateException("bug: series registered twice: " + ref);
      }
      if (slot >= byId.length) {
        byId = java.util.Arrays.copyOf(byId,
            (int) Math.min(Integer.MAX_VALUE - 8, Math.max(slot + 1, 2L * byId.length)));
      }
      postings.add(ref.id, ref.labels);
      ref.owner = this;
      if (2 * (size + 1) > byLabels.length) {
        if (byLabels.length >= 1 << 30) {
          throw new IllegalStateException("the index holds " + size + " series, its limit");
        }
        SeriesRef[] bigger = new SeriesRef[2 * byLabels.length];
        for (SeriesRef r : byLabels) {
          if (r != null) {
            place(bigger, r);
          }
        }
        byLabels = bigger;
      }
      place(byLabels, ref);
      byId[(int) slot] = ref;
      slotsUsed = Math.max(slotsUsed, (int) slot + 1);
      size++;
    } finally {
      lock.writeLock().unlock();
    }
  }

  /** @return the series with these labels, or null; under the lock */
  private SeriesRef findByLabels(LabelSet labels) {
    SeriesRef[] table = byLabels;
    int mask = table.length - 1;
    int h = labels.hashCode();
    for (int i = h & mask; ; i = (i + 1) & mask) {
      SeriesRef r = table[i];
      if (r == null) {
        return null;
      }
      if (r.labels.hashCode() == h && r.labels.equals(labels)) {
        return r;
      }
    }
  }

  /** Puts {@code ref} in the first free slot of its probe sequence. */
  private static void place(SeriesRef[] table, SeriesRef ref) {
    int mask = table.length - 1;
    int i = ref.labels.hashCode() & mask;
    while (table[i] != null) {
      i = (i + 1) & mask;
    }
    table[i] = ref;
  }

  /** @return the number of series */
  int size() {
    lock.readLock().lock();
    try {
      return size;
    } finally {
      lock.readLock().unlock();
    }
  }

  /**
   * Copies the series of id slots {@code [from, from + out.length)} into {@code out}, so a
   * caller can walk every series in slices without holding the lock throughout.
   *
   * @param from the first slot (id minus {@link Keys#FIRST_SERIES_ID}), ≥ 0
   * @param out where to copy; an entry is null for a slot without a series
   * @return how many slots were copied; 0 once {@code from} is past the last series
   */
  int slice(int from, SeriesRef[] out) {
    lock.readLock().lock();
    try {
      int n = Math.max(0, Math.min(out.length, slotsUsed - from));
      if (n > 0) {
        System.arraycopy(byId, from, out, 0, n);
      }
      return n;
    } finally {
      lock.readLock().unlock();
    }
  }

  /** What {@link #visitActive} reports. */
  interface ActiveVisitor {
    /**
     * One label pair carried by at least one active series.
     *
     * @param name the label name
     * @param value the label value
     * @param activeSeries active series carrying it, ≥ 1
     */
    void pair(String name, String value, int activeSeries);
  }

  /**
   * Walks the postings of the active series ({@link SeriesRef#active}) under the read lock:
   * every label name in no particular order, and each of its values in UTF-8 order, with the
   * number of active series carrying it. Costs one pass over every posting entry (series times
   * labels), without allocating per series.
   *
   * @param visitor called per pair with at least one active series
   */
  void visitActive(ActiveVisitor visitor) {
    lock.readLock().lock();
    try {
      java.util.function.LongPredicate isActive = id -> {
        SeriesRef r = lookup(id);
        return r != null && r.active;
      };
      for (Map.Entry<String, java.util.NavigableMap<String, Postings.IdList>> byName
          : postings.byName().entrySet()) {
        String name = byName.getKey();
        for (Map.Entry<String, Postings.IdList> e : byName.getValue().entrySet()) {
          int n = e.getValue().count(isActive);
          if (n > 0) {
            visitor.pair(name, e.getKey(), n);
          }
        }
      }
    } finally {
      lock.readLock().unlock();
    }
  }

  /** @return every series, ascending by id, in a fresh list */
  List<SeriesRef> all() {
    return resolve(List.of());
  }

  /**
   * Resolves PromQL matchers to series, without looking at samples. An empty list selects every
   * series. A matcher that matches the empty string also selects series lacking its label.
   *
   * @param matchers the matchers, all of which must hold
   * @return matching series, ascending by id, in a fresh list
   * @throws IllegalArgumentException if the list is not empty and every matcher matches the
   *     empty string (PromQL refuses such selectors because they would select everything)
   */
  List<SeriesRef> resolve(List<Matcher> matchers) {
    boolean anyNonEmpty = false;
    for (Matcher m : matchers) {
      anyNonEmpty |= !m.matchesEmpty();
    }
    if (!matchers.isEmpty() && !anyNonEmpty) {
      throw new IllegalArgumentException(
          "at least one matcher must not match the empty string: " + matchers);
    }
    lock.readLock().lock();
    try {
      long[] ids = null;
      if (matchers.isEmpty()) {
        ids = postings.all();
      }
      // Matchers that require a non-empty value narrow the set by intersection...
      for (Matcher m : matchers) {
        if (!m.matchesEmpty()) {
          long[] matching = matchingIds(m);
          ids = ids == null ? matching : Postings.intersect(ids, matching);
        }
      }
      // ...and matchers that accept the empty value (label absent) remove only the series whose
      // present value they reject.
      for (Matcher m : matchers) {
        if (m.matchesEmpty()) {
          ids = Postings.subtract(ids, rejectedIds(m));
        }
      }
      List<SeriesRef> out = new ArrayList<>(ids.length);
      for (long id : ids) {
        out.add(lookup(id));
      }
      return out;
    } finally {
      lock.readLock().unlock();
    }
  }

  /** @return the series with this id, or null; under the lock */
  private SeriesRef lookup(long id) {
    long slot = id - Keys.FIRST_SERIES_ID;
    return slot >= 0 && slot < byId.length ? byId[(int) slot] : null;
  }

  /** Ids of series whose value of {@code m.name()} is present and satisfies {@code m}. */
  private long[] matchingIds(Matcher m) {
    if (m.type() == Matcher.Type.EQ) {
      return postings.get(m.name(), m.value());
    }
    List<Postings.IdList> lists = new ArrayList<>();
    for (Map.Entry<String, Postings.IdList> e : postings.values(m.name()).entrySet()) {
      if (m.matches(e.getKey())) {
        lists.add(e.getValue());
      }
    }
    return Postings.union(lists);
  }

  /** Ids of series whose value of {@code m.name()} is present and does not satisfy {@code m}. */
  private long[] rejectedIds(Matcher m) {
    List<Postings.IdList> lists = new ArrayList<>();
    for (Map.Entry<String, Postings.IdList> e : postings.values(m.name()).entrySet()) {
      if (!m.matches(e.getKey())) {
        lists.add(e.getValue());
      }
    }
    return Postings.union(lists);
  }
}
