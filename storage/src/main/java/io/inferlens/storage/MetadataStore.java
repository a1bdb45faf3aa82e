package io.inferlens.storage;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;

/**
 * The metric metadata of a store: per metric family, the distinct {@link MetricMetadata} entries
 * senders sent, in memory for reads and in one {@code meta} key per family for restarts
 * (storage/FORMAT.md, "Metric metadata").
 *
 * <p>Writes only on change. Prometheus sends all its metadata every minute
 * ({@code metadata_config.send_interval}), in an order that changes from one send to the next
 * (its metadata watcher walks a Go map of targets), so an entry already held costs no write,
 * wherever it comes in a request; its key is rewritten only when the family gains an entry. The
 * persisted order is the order entries were first stored. When a family would hold more than
 * {@link MetricMetadata#MAX_ENTRIES_PER_FAMILY}, the entry sent least recently is dropped; when
 * each entry was last sent is kept in memory only (it changes every minute), and after a restart
 * starts as the persisted order.
 *
 * <p>Retention: entries stay as long as the store, whatever happens to the family's series;
 * {@link Retention} does not touch them.
 *
 * <p>Thread safety: reads take no lock beyond the lifecycle read lock and see each family's
 * entries as of some completed append. Appends are serialized by {@link StoreLocks#metadata},
 * taken under the lifecycle read lock and never together with the sample locks.
 */
final class MetadataStore {

  /** First byte of the value: layout 1. */
  static final int LAYOUT = 1;

  private final StoreCore core;
  /** Family name → its entries, persisted order; immutable lists, replaced whole. */
  private final ConcurrentHashMap<String, List<MetricMetadata>> families =
      new ConcurrentHashMap<>();
  /**
   * Family name → the tick at which each of its entries was last sent, index for index with
   * {@link #families}; guarded by the metadata lock.
   */
  private final Map<String, long[]> lastSent = new java.util.HashMap<>();
  /** Increments per entry appended; guarded by the metadata lock. */
  private long tick;

  MetadataStore(StoreCore core) {
    this.core = core;
  }

  /**
   * Reads every metadata key into memory. Runs at open, before the store is shared.
   *
   * @return the number of families loaded
   * @throws StorageException if a value does not decode (the message names the family)
   * @throws RocksDBException if RocksDB fails
   */
  int load() throws StorageException, RocksDBException {
    byte[] prefix = Keys.META_METRIC_METADATA_PREFIX;
    try (RocksIterator it = core.rocks.db.newIterator(core.rocks.meta)) {
      for (it.seek(prefix); it.isValid(); it.next()) {
        byte[] key = it.key();
        if (!startsWith(key, prefix)) {
          break;
        }
        String family = new String(key, prefix.length, key.length - prefix.length,
            StandardCharsets.UTF_8);
        List<MetricMetadata> entries;
        try {
          entries = decode(family, it.value());
        } catch (IllegalArgumentException | IllegalStateException | ArrayIndexOutOfBoundsException e) {
          throw new StorageException("corrupt store: meta key for the metadata of metric family \""
              + family + "\" does not decode: " + e.getMessage(), e);
        }
        families.put(family, entries);
        long[] sent = new long[entries.size()];
        for (int i = 0; i < sent.length; i++) {
          sent[i] = ++tick;
        }
        lastSent.put(family, sent);
      }
      it.status();
    }
    return families.size();
  }

  /**
   * Stores entries not held yet; see the class comment for what changes and what is written.
   *
   * @param entries entries in the order they were sent; validated by {@link MetricMetadata}
   * @return the number of families whose key was written (0 when every entry was held already)
   * @throws StorageException if RocksDB fails or the store is closed; nothing of this call is
   *     stored then, in memory or on disk
   */
  int append(List<MetricMetadata> entries) throws StorageException {
    if (entries.isEmpty()) {
      return 0;
    }
    core.locks.lifecycle.readLock().lock();
    try {
      core.ensureOpen();
      core.locks.metadata.lock();
      try {
        return appendLocked(entries);
      } finally {
        core.locks.metadata.unlock();
      }
    } finally {
      core.locks.lifecycle.readLock().unlock();
    }
  }

  private int appendLocked(List<MetricMetadata> entries) throws StorageException {
    // Families this call changes: the new entries and send ticks, committed after the write.
    Map<String, List<MetricMetadata>> changed = new LinkedHashMap<>();
    Map<String, long[]> changedSent = new java.util.HashMap<>();
    for (MetricMetadata m : entries) {
      String family = m.metricFamilyName();
      long now = ++tick;
      List<MetricMetadata> cur = changed.get(family);
      long[] sent = changedSent.get(family);
      if (cur == null) {
        cur = families.getOrDefault(family, List.of());
        sent = lastSent.getOrDefault(family, new long[0]);
      }
      int at = cur.indexOf(m);
      if (at >= 0) {
        sent[at] = now; // held already: no write, only when it was last sent
        continue;
      }
      List<MetricMetadata> next = new ArrayList<>(cur);
      long[] nextSent = Arrays.copyOf(sent, sent.length + 1);
      next.add(m);
      nextSent[sent.length] = now;
      if (next.size() > MetricMetadata.MAX_ENTRIES_PER_FAMILY) {
        int oldest = 0;
        for (int i = 1; i < nextSent.length; i++) {
          if (nextSent[i] < nextSent[oldest]) {
            oldest = i;
          }
        }
        next.remove(oldest);
        long[] kept = new long[nextSent.length - 1];
        System.arraycopy(nextSent, 0, kept, 0, oldest);
        System.arraycopy(nextSent, oldest + 1, kept, oldest, kept.length - oldest);
        nextSent = kept;
      }
      changed.put(family, next);
      changedSent.put(family, nextSent);
    }
    if (changed.isEmpty()) {
      return 0;
    }
    try (WriteBatch batch = new WriteBatch()) {
      for (Map.Entry<String, List<MetricMetadata>> e : changed.entrySet()) {
        batch.put(core.rocks.meta, Keys.metricMetadataKey(e.getKey()), encode(e.getValue()));
      }
      core.rocks.db.write(core.rocks.writeOptions, batch);
    } catch (RocksDBException e) {
      throw new StorageException("metadata of " + changed.size()
          + " metric families not stored: " + e.getMessage(), e);
    }
    for (Map.Entry<String, List<MetricMetadata>> e : changed.entrySet()) {
      families.put(e.getKey(), List.copyOf(e.getValue()));
      lastSent.put(e.getKey(), changedSent.get(e.getKey()));
    }
    return changed.size();
  }

  /**
   * The contract is {@link Querier#metadata(String, int, int)}.
   *
   * @throws StorageException if the store is closed
   */
  Map<String, List<MetricMetadata>> query(String metric, int limit, int limitPerMetric)
      throws StorageException {
    core.locks.lifecycle.readLock().lock();
    try {
      core.ensureOpen();
      Map<String, List<MetricMetadata>> out = new LinkedHashMap<>();
      if (limit == 0) {
        return out;
      }
      List<String> names;
      if (metric == null || metric.isEmpty()) {
        names = new ArrayList<>(families.keySet());
        names.sort(LabelSet.UTF8_ORDER);
      } else {
        names = List.of(metric);
      }
      for (String name : names) {
        if (limit > 0 && out.size() >= limit) {
          break;
        }
        List<MetricMetadata> entries = families.get(name);
        if (entries == null) {
          continue;
        }
        List<MetricMetadata> newestFirst = new ArrayList<>(entries);
        Collections.reverse(newestFirst);
        if (limitPerMetric > 0 && newestFirst.size() > limitPerMetric) {
          newestFirst = new ArrayList<>(newestFirst.subList(0, limitPerMetric));
        }
        out.put(name, newestFirst);
      }
      return out;
    } finally {
      core.locks.lifecycle.readLock().unlock();
    }
  }

  /** @return the number of families held */
  int familyCount() {
    return families.size();
  }

  /**
   * @param entries 1 to {@link MetricMetadata#MAX_ENTRIES_PER_FAMILY} entries of one family
   * @return {@code 01 varint(n)}, then per entry {@code byte(type code) varint(len) help
   *     varint(len) unit} (UTF-8), in the given order
   */
  static byte[] encode(List<MetricMetadata> entries) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(LAYOUT);
    Varints.put(out, entries.size());
    for (MetricMetadata m : entries) {
      out.write(m.type().code());
      putString(out, m.help());
      putString(out, m.unit());
    }
    return out.toByteArray();
  }

  /**
   * @param family the family name from the key
   * @param value a value written by {@link #encode}
   * @return its entries, in stored order; immutable
   * @throws IllegalArgumentException if the value is not such a value (layout, count, type
   *     code, lengths, trailing bytes, or bounds of {@link MetricMetadata})
   */
  static List<MetricMetadata> decode(String family, byte[] value) {
    if (value.length < 2 || value[0] != LAYOUT) {
      throw new IllegalArgumentException("layout byte is not " + LAYOUT);
    }
    int[] p = {1};
    long n = Varints.get(value, p, "metadata value");
    if (n < 1 || n > MetricMetadata.MAX_ENTRIES_PER_FAMILY) {
      throw new IllegalArgumentException(n + " entries, expected 1.."
          + MetricMetadata.MAX_ENTRIES_PER_FAMILY);
    }
    List<MetricMetadata> out = new ArrayList<>((int) n);
    for (int i = 0; i < n; i++) {
      MetricType type = MetricType.ofCode(value[p[0]++]);
      String help = getString(value, p);
      String unit = getString(value, p);
      out.add(new MetricMetadata(family, type, help, unit));
    }
    if (p[0] != value.length) {
      throw new IllegalArgumentException((value.length - p[0]) + " trailing bytes");
    }
    return List.copyOf(out);
  }

  private static void putString(ByteArrayOutputStream out, String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    Varints.put(out, b.length);
    out.write(b, 0, b.length);
  }

  private static String getString(byte[] b, int[] p) {
    long len = Varints.get(b, p, "metadata value");
    if (len > b.length - p[0]) {
      throw new IllegalArgumentException("string of " + len + " bytes runs past the value");
    }
    String s = new String(b, p[0], (int) len, StandardCharsets.UTF_8);
    p[0] += (int) len;
    return s;
  }



  private static boolean startsWith(byte[] key, byte[] prefix) {
    return key.length >= prefix.length
        && Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length);
  }
}
