package io.inferlens.storage;

import io.inferlens.storage.head.HeadBuffer;
import io.inferlens.storage.head.HeadLog;
import io.inferlens.storage.head.SampleRun;
import io.inferlens.storage.chunk.ChunkCodec;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.CompactRangeOptions;
import org.rocksdb.FlushOptions;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * The append path ({@code head_append.go} in Prometheus tsdb): checks each sample (retention
 * horizon, duplicate, conflict), writes the accepted ones as one head-log record in one RocksDB
 * batch with the series they create, then fills the series' head buffers.
 *
 * <p>Thread safety: {@link #append} takes the append lock ({@link StoreLocks}) for the whole
 * call; every method named {@code ...Locked} and the pooled state run under it.
 */
final class HeadAppender {

  private final StoreCore core;
  private final StoreOptions options;
  private final Clock clock;
  private final RocksHandles rocks;
  private final SeriesIndex index;
  private final ReentrantReadWriteLock lifecycle;
  private final StoreLocks.RankedLock appendLock;
  private final StoreLocks.RankedLock flushLock;
  private final StoreLocks.RankedLock finalizeLock;
  private final WindowMarks unfinalized;
  private final Map<Long, AtomicLong> partitionSamples;
  private static final System.Logger LOG = System.getLogger(TimeSeriesStore.class.getName());
  private final FlushRequester flusher;
  private final HeadLog logRecord = new HeadLog();

  /** Decoded chunk windows for duplicate checks, kept across calls; guarded by the append lock. */
  private final StoredWindowCache stored = new StoredWindowCache();

  /** Decode scratch of {@link #storedBits}; guarded by the append lock. */
  private SampleRun windowScratch = new SampleRun(512);

  /** Most {@link Pending} kept between appends: a remote-write request has ~2,000 series. */
  private static final int MAX_POOLED_PENDING = 16_384;

  /** Reusable {@link Pending}s; guarded by the append lock. */
  private final List<Pending> pendingPool = new ArrayList<>();

  /** The series of the running append, in first-seen order; guarded by the append lock. */
  private final List<Pending> pendingInCall = new ArrayList<>();

  /** Asks for a background head flush; called under the append lock. */
  interface FlushRequester {
    /** @return the flush queued or running; completed when none could be queued */
    Future<?> requestFlush();
  }

  private static void awaitQuietly(Future<?> f) {
    try {
      f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (java.util.concurrent.ExecutionException e) {
      // Logged by the task itself.
    }
  }

  HeadAppender(StoreCore core, FlushRequester flusher) {
    this.core = core;
    this.options = core.options;
    this.clock = core.clock;
    this.rocks = core.rocks;
    this.index = core.index;
    this.lifecycle = core.locks.lifecycle;
    this.appendLock = core.locks.append;
    this.flushLock = core.locks.flush;
    this.finalizeLock = core.locks.finalize;
    this.unfinalized = core.unfinalized;
    this.partitionSamples = core.partitionSamples;
    this.flusher = flusher;
  }

  /**
   * Appends samples; the contract is {@link SampleAppender#append}.
   *
   * <p>Per sample: older than {@code now - retentionMs} → rejected; same timestamp and raw bits as
   * a stored sample or one earlier in this call → duplicate, stored once; same timestamp and
   * different bits → rejected, the stored value kept; otherwise accepted, unless its series is
   * not active and {@link ActiveSeries#admit} refuses to make it active (a {@link SeriesLimits}
   * limit): then all its samples of the call that would be accepted are refused, counted in an
   * {@link AppendResult.LimitRefusal}. Series are created only when one of their samples is
   * accepted; an empty label set is rejected. The accepted samples
   * (one head-log record) and new series of the call are written in one RocksDB batch with the
   * WAL (fsync per {@link StoreOptions#syncWal()}); the result returns after that write. At most
   * {@value #MAX_LISTED_REJECTIONS} rejections are listed; {@code rejectedCount} counts all.
   *
   * <p>Holds the store-wide append lock for the whole call. A sample newer than everything stored
   * for its series costs no read; an older one (backfill, a replay) is looked up in the head, then
   * in its window's chunks, decoded once and kept across calls ({@link StoredWindowCache}). When
   * the head is over twice {@link StoreOptions#headMaxSamples()} because flushes fall behind, the
   * call waits for the running flush before returning (back-pressure).
   *
   * @throws StorageException if RocksDB failed or the store is closed; nothing of this call was
   *     written then
   */
  AppendResult append(List<SeriesWrite> writes) throws StorageException {
    Future<?> wait = null;
    AppendResult result;
    lifecycle.readLock().lock();
    try {
      core.ensureOpen();
      appendLock.lock();
      try {
        result = appendLocked(writes);
        if (core.headSamples >= options.headMaxSamples()) {
          wait = flusher.requestFlush();
          if (core.headSamples + core.flushingSamples < 2L * options.headMaxSamples()) {
            wait = null;
          }
        }
      } finally {
        appendLock.unlock();
      }
    } finally {
      lifecycle.readLock().unlock();
    }
    if (wait != null) {
      awaitQuietly(wait);
    }
    return result;
  }

  /**
   * A series touched by one append: its accepted samples in call order. Instances are pooled
   * across calls under the append lock ({@link #pendingPool}), so a call allocates nothing per
   * series once the pool has grown to the calls' series count.
   */
  static final class Pending {
    SeriesRef ref;
    boolean created;
    /** Whether this call makes the series active ({@link ActiveSeries#admit} reserved it). */
    boolean activates;
    long[] ts = new long[4];
    long[] bits = new long[4];
    int n;
    long maxTs;
    /** Built only when a sample arrives out of order within the call. */
    Map<Long, Long> byTs;

    Pending reset(SeriesRef ref, boolean created) {
      this.ref = ref;
      this.created = created;
      activates = false;
      n = 0;
      maxTs = Long.MIN_VALUE;
      byTs = null;
      return this;
    }

    Long get(long t) {
      if (n == 0 || t > maxTs) {
        return null;
      }
      if (byTs == null) {
        byTs = new HashMap<>();
        for (int i = 0; i < n; i++) {
          byTs.put(ts[i], bits[i]);
        }
      }
      return byTs.get(t);
    }

    void add(long t, long b) {
      if (n == ts.length) {
        ts = java.util.Arrays.copyOf(ts, n * 2);
        bits = java.util.Arrays.copyOf(bits, n * 2);
      }
      ts[n] = t;
      bits[n] = b;
      n++;
      maxTs = Math.max(maxTs, t);
      if (byTs != null) {
        byTs.put(t, b);
      }
    }
  }

  /** Collects rejections, listing the first few. */
  private static final class Rejections {
    final List<AppendResult.Rejection> listed = new ArrayList<>();
    long count;

    void add(LabelSet series, long timestampMs, String reason) {
      count++;
      if (listed.size() < TimeSeriesStore.MAX_LISTED_REJECTIONS) {
        listed.add(
            new AppendResult.Rejection(series, timestampMs, "series " + series + ": " + reason));
      }
    }
  }

  private AppendResult appendLocked(List<SeriesWrite> writes) throws StorageException {
    // Series of this call in first-seen order. A known series finds its Pending through
    // SeriesRef.pending (no hashing of ten-odd label strings per series); new ones by label set.
    List<Pending> pending = pendingInCall;
    try {
      return appendLocked(writes, pending);
    } finally {
      core.active.endCall();
      for (Pending p : pending) {
        p.ref.pending = null;
        p.ref = null;
        if (p.ts.length > 1024) { // a rare long series: do not keep its arrays
          p.ts = new long[4];
          p.bits = new long[4];
        }
      }
      pending.clear();
      if (pendingPool.size() > MAX_POOLED_PENDING) {
        pendingPool.subList(MAX_POOLED_PENDING, pendingPool.size()).clear();
      }
    }
  }

  /**
   * The state of one append call's collect phase. The call is split into small methods (collect
   * one series, write the log record, fill one head) rather than one long one with nested loops:
   * C2 compiled the long one about ten times (an OSR compile per loop, then recompiles), each with
   * the callees inlined, which was a fifth of all JIT time on the 10-second {@code s2k-2880} run.
   */
  private static final class CallState {
    final long nowMs;
    final long horizonMs;
    final Rejections rejections = new Rejections();
    Map<LabelSet, Pending> newSeries;
    long duplicates;
    long newId;
    /** Per {@link SeriesLimits.Kind} ordinal, what it refused; null until it refuses. */
    final LimitTally[] limited = new LimitTally[SeriesLimits.Kind.values().length];
    /** Series refused by a limit in this call (counted once each); null until one is. */
    java.util.Set<LabelSet> refusedSeries;

    CallState(long nowMs, long horizonMs, long newId) {
      this.nowMs = nowMs;
      this.horizonMs = horizonMs;
      this.newId = newId;
    }
  }

  /** What one limit refused in one call; becomes an {@link AppendResult.LimitRefusal}. */
  private static final class LimitTally {
    final SeriesLimits.Kind kind;
    final LabelSet first;
    final long activeCount;
    final int order;
    long series;
    long samples;

    LimitTally(SeriesLimits.Kind kind, LabelSet first, long activeCount, int order) {
      this.kind = kind;
      this.first = first;
      this.activeCount = activeCount;
      this.order = order;
    }
  }

  /** @param pending empty; filled with the call's series, whose {@code ref.pending} is set */
  private AppendResult appendLocked(List<SeriesWrite> writes, List<Pending> pending)
      throws StorageException {
    long nowMs = clock.millis();
    long firstNewId = core.nextSeriesId;
    CallState call = new CallState(
        nowMs, StoreCore.saturatedSubtract(nowMs, options.retentionMs()), firstNewId);
    if (firstNewId > TOUCH_ABOVE_SERIES) {
      touchSink += touch(writes);
    }
    try {
      for (int i = 0, n = writes.size(); i < n; i++) {
        collectSeries(writes.get(i), call, pending);
      }
    } catch (RocksDBException e) {
      throw new StorageException("looking up possibly conflicting samples failed, nothing"
          + " acknowledged: " + e.getMessage(), e);
    }
    long appended = writeLogRecord(pending, call.newId, firstNewId);
    // Durable now: the call's activations count (a failed call's are dropped by endCall).
    core.active.commitCall();

    // Durable now: publish new series, fill the head, raise the max timestamps.
    core.nextSeriesId = call.newId;
    long minTs = Long.MAX_VALUE;
    long maxTs = Long.MIN_VALUE;
    for (int i = 0, n = pending.size(); i < n; i++) {
      Pending p = pending.get(i);
      minTs = Math.min(minTs, fillHead(p, nowMs));
      maxTs = Math.max(maxTs, p.maxTs);
    }
    if (appended > 0) {
      published(nowMs, appended, minTs, maxTs);
    }
    return new AppendResult(appended, call.duplicates, call.newId - firstNewId,
        List.copyOf(call.rejections.listed), call.rejections.count, limitRefusals(call));
  }

  /** @return the call's limit refusals, in the order each limit first refused a series */
  private List<AppendResult.LimitRefusal> limitRefusals(CallState call) {
    List<LimitTally> tallies = new ArrayList<>(2);
    for (LimitTally t : call.limited) {
      if (t != null) {
        tallies.add(t);
      }
    }
    if (tallies.isEmpty()) {
      return List.of();
    }
    tallies.sort(java.util.Comparator.comparingInt(t -> t.order));
    List<AppendResult.LimitRefusal> out = new ArrayList<>(tallies.size());
    SeriesLimits limits = core.active.limits();
    for (LimitTally t : tallies) {
      out.add(new AppendResult.LimitRefusal(t.kind, limits.value(t.kind), t.first,
          t.activeCount, t.series, t.samples));
    }
    return out;
  }

  /**
   * Series ids assigned beyond which {@link #touch} runs: with fewer series their label sets,
   * refs and heads stay in the CPU caches and the extra pass only costs (1.7 % of a 2,000-series
   * bench run's receiver CPU in a perf profile, docs/BENCHMARKS.md "Fast by default, second pass").
   */
  private static final long TOUCH_ABOVE_SERIES = 16_384;

  /** Keeps the touch pass's loads from being optimized away; its value means nothing. */
  private long touchSink;

  /**
   * Loads each known series' label set, ref and head stream byte in one tight loop before the
   * per-series work. At 100,000 series these are cache misses (JFR: the index lookup alone was
   * 10 % of ingest samples), which the per-series code takes one after another; here the loads
   * of different series are independent, so the CPU overlaps them.
   */
  private static long touch(List<SeriesWrite> writes) {
    long sum = 0;
    for (int i = 0, n = writes.size(); i < n; i++) {
      SeriesRef ref = writes.get(i).labels().indexRef;
      if (ref != null) {
        HeadBuffer head = ref.head;
        sum += head != null ? head.touch() : ref.id;
      }
    }
    return sum;
  }

  /** Collects the acceptable samples of one series write into its {@link Pending}. */
  private void collectSeries(SeriesWrite w, CallState call, List<Pending> pending)
      throws RocksDBException, StorageException {
    LabelSet labels = w.labels();
    SeriesRef known = index.get(labels);
    Pending p;
    if (known != null) {
      p = known.pending;
    } else {
      p = call.newSeries == null ? null : call.newSeries.get(labels);
      if (p != null) {
        known = p.ref;
      }
    }
    if (known != null && !known.maxKnown) {
      loadMaxTimestamp(known);
    }
    long[] tss = w.timestampsMs();
    long[] vbs = w.valueBits();
    SeriesLimits.Kind refusedBy = null;
    for (int i = 0, n = w.count(); i < n; i++) {
      long ts = tss[i];
      long bits = vbs[i];
      if (labels.size() == 0 || ts < call.horizonMs || ts < -TimeSeriesStore.MAX_ABS_TIMESTAMP_MS
          || ts > TimeSeriesStore.MAX_ABS_TIMESTAMP_MS) {
        rejectOutOfRange(call, labels, ts);
        continue;
      }
      if (p != null && p.n > 0 && ts <= p.maxTs && isRepeatInCall(call, labels, p, ts, bits)) {
        continue;
      }
      if (known != null && !(p != null && p.created) && ts <= known.maxTimestampMs
          && isStored(call, labels, known, ts, bits)) {
        continue;
      }
      if (p == null) {
        if (refusedBy == null && (known == null || !known.active)) {
          refusedBy = admit(call, labels);
        }
        if (refusedBy != null) {
          call.limited[refusedBy.ordinal()].samples++;
          continue;
        }
        boolean activates = known == null || !known.active;
        p = startPending(call, pending, known, labels);
        p.activates = activates;
        known = p.ref;
      }
      p.add(ts, bits);
    }
  }

  /**
   * Asks {@link ActiveSeries} whether a series that is not active may become active in this
   * call, and tallies a refusal.
   *
   * @return null when admitted, else the limit that refused it
   */
  private SeriesLimits.Kind admit(CallState call, LabelSet labels) {
    SeriesLimits.Kind kind = core.active.admit(labels);
    if (kind == null) {
      return null;
    }
    LimitTally t = call.limited[kind.ordinal()];
    if (t == null) {
      int order = 0;
      for (LimitTally other : call.limited) {
        order += other != null ? 1 : 0;
      }
      t = new LimitTally(kind, labels, core.active.activeFor(kind, labels), order);
      call.limited[kind.ordinal()] = t;
    }
    if (call.refusedSeries == null) {
      call.refusedSeries = new java.util.HashSet<>();
    }
    if (call.refusedSeries.add(labels)) {
      t.series++;
    }
    return kind;
  }

  /** Rejects a sample of a label-less series or outside the accepted time range. */
  private void rejectOutOfRange(CallState call, LabelSet labels, long ts) {
    if (labels.size() == 0) {
      call.rejections.add(labels, ts, "a series without labels cannot be stored");
    } else if (ts < -TimeSeriesStore.MAX_ABS_TIMESTAMP_MS
        || ts > TimeSeriesStore.MAX_ABS_TIMESTAMP_MS) {
      call.rejections.add(labels, ts, "sample at " + ts + " ms is outside the supported range"
          + " of +-2^62 ms");
    } else {
      call.rejections.add(labels, ts, "sample at " + ts + " ms is older than the retention"
          + " horizon " + call.horizonMs + " ms (now " + call.nowMs + " ms minus retention "
          + options.retentionMs() + " ms)");
    }
  }

  /**
   * @return whether the same call already gave a sample at {@code ts} (counted as a duplicate
   *     if equal, rejected otherwise)
   */
  private static boolean isRepeatInCall(
      CallState call, LabelSet labels, Pending p, long ts, long bits) {
    return duplicateOrConflict(call, labels, ts, bits, p.get(ts),
        " was given earlier in the same append");
  }

  /**
   * @return whether a sample at {@code ts} is already stored (counted as a duplicate if equal,
   *     rejected otherwise)
   */
  private boolean isStored(CallState call, LabelSet labels, SeriesRef known, long ts, long bits)
      throws RocksDBException {
    return duplicateOrConflict(call, labels, ts, bits, storedBits(known, ts, call.nowMs),
        " is already stored");
  }

  /**
   * Counts a sample equal to an {@code earlier} one at its timestamp as a duplicate, or rejects
   * it when the raw bits differ.
   *
   * @return false when there is no earlier sample
   */
  private static boolean duplicateOrConflict(
      CallState call, LabelSet labels, long ts, long bits, Long earlier, String where) {
    if (earlier == null) {
      return false;
    }
    if (earlier == bits) {
      call.duplicates++;
    } else {
      call.rejections.add(labels, ts, "sample at " + ts + " ms has value " + shownValue(bits)
          + " but " + shownValue(earlier) + where);
    }
    return true;
  }

  /** Takes a pooled {@link Pending} for the series, creating the series if it is new. */
  private Pending startPending(
      CallState call, List<Pending> pending, SeriesRef known, LabelSet labels) {
    int pooled = pending.size();
    if (pooled == pendingPool.size()) {
      pendingPool.add(new Pending());
    }
    Pending p = pendingPool.get(pooled);
    if (known != null) {
      p.reset(known, false);
    } else {
      SeriesRef ref = new SeriesRef(call.newId++, labels, SeriesRef.NO_SAMPLES);
      ref.maxKnown = true;
      p.reset(ref, true);
      if (call.newSeries == null) {
        call.newSeries = new HashMap<>();
      }
      call.newSeries.put(labels, p);
    }
    p.ref.pending = p;
    pending.add(p);
    return p;
  }

  /**
   * Writes the call's head-log record, new series and next series id in one RocksDB batch.
   *
   * @return the number of samples made durable
   * @throws StorageException if RocksDB failed; nothing of the call was written then
   */
  private long writeLogRecord(List<Pending> pending, long newId, long firstNewId)
      throws StorageException {
    long appended = 0;
    long seq = core.nextLogSeq;
    try (WriteBatch batch = new WriteBatch()) {
      logRecord.reset();
      for (int i = 0, n = pending.size(); i < n; i++) {
        Pending p = pending.get(i);
        if (p.created) {
          putSeries(batch, p.ref);
        }
        logRecord.addSeries(p.ref.id, p.ts, p.bits, p.n);
        appended += p.n;
      }
      if (!logRecord.isEmpty()) {
        batch.put(rocks.headLog, Keys.be64(seq), logRecord.toBytes());
      }
      if (newId > firstNewId) {
        batch.put(rocks.meta, Keys.META_NEXT_SERIES_ID, Keys.be64(newId));
      }
      if (batch.count() > 0) {
        rocks.db.write(rocks.writeOptions, batch);
      }
    } catch (RocksDBException e) {
      // nextSeriesId and nextLogSeq were not advanced: this call left no trace.
      throw new StorageException("append of " + appended + " samples (" + (newId - firstNewId)
          + " new series) failed, nothing acknowledged: " + e.getMessage(), e);
    }
    if (appended > 0) {
      core.nextLogSeq = seq + 1;
    }
    return appended;
  }

  /**
   * Moves one durable {@link Pending} into its series' head, widens its bounds, marks it
   * appended at {@code nowMs} (active if the call admitted it) and publishes a new series in the
   * index.
   *
   * @return the smallest timestamp added, ms
   */
  private long fillHead(Pending p, long nowMs) {
    SeriesRef ref = p.ref;
    long pMin = Long.MAX_VALUE;
    long[] ts = p.ts;
    long[] bits = p.bits;
    synchronized (ref) {
      HeadBuffer head = ref.head;
      if (head == null) {
        head = new HeadBuffer();
        ref.head = head;
      }
      for (int i = 0, n = p.n; i < n; i++) {
        head.add(ts[i], bits[i]);
        pMin = Math.min(pMin, ts[i]);
      }
    }
    ref.widenBounds(pMin, p.maxTs);
    ref.lastAppendMs = nowMs;
    if (p.activates) {
      ref.active = true;
    }
    if (p.maxTs > ref.maxTimestampMs) {
      ref.maxTimestampMs = p.maxTs;
    }
    if (p.created) {
      index.add(ref);
    }
    return pMin;
  }

  /** Accounts a durable append in the head and tells the core.listeners. */
  private void published(long nowMs, long appended, long minTs, long maxTs) {
    if (core.headSamples == 0) {
      core.headSinceMs = nowMs;
    }
    core.lastAppendMs = nowMs;
    core.headSamples += appended;
    if (minTs < core.headMinTs) {
      core.headMinTs = minTs;
    }
    if (maxTs > core.maxSeenMs) {
      core.maxSeenMs = maxTs;
    }
    for (Querier.AppendListener l : core.listeners) {
      try {
        l.appended(minTs, maxTs);
      } catch (RuntimeException e) {
        // A listener (a cache) failing must not fail a durable append.
        LOG.log(System.Logger.Level.WARNING, "append listener failed", e);
      }
    }
  }

  /**
   * Sets {@code ref.maxTimestampMs} after a restart from the head and the series' newest chunk
   * window. Under the append lock.
   */
  private void loadMaxTimestamp(SeriesRef ref) throws StorageException {
    long max = SeriesRef.NO_SAMPLES;
    synchronized (ref) {
      if (ref.head != null) {
        max = Math.max(max, ref.head.maxTimestampMs());
      }
    }
    if (ref.presenceDay != Long.MIN_VALUE) {
      long dayStart = ref.presenceDay * 86_400_000L;
      SampleRun run = new SampleRun(512);
      rocks.partitionLock.readLock().lock();
      try {
        ColumnFamilyHandle cf = rocks.partition(PartitionKind.CHUNKS, dayStart);
        if (cf != null) {
          long lastChunk = Long.MIN_VALUE;
          try (RocksIterator it = rocks.db.newIterator(cf)) {
            it.seekForPrev(Keys.dataKey(ref.id, Long.MAX_VALUE));
            if (it.isValid() && it.key()[0] == Keys.PREFIX_DATA
                && Keys.keySeriesId(it.key()) == ref.id) {
              lastChunk = Keys.keyTimestampMs(it.key());
            }
            it.status();
          }
          if (lastChunk != Long.MIN_VALUE) {
            long ws = StoreCore.windowStart(lastChunk);
            ChunkReads.read(rocks, cf, ref.id, ws, ws + TimeSeriesStore.WINDOW_MS - 1, run, false);
          }
        }
      } catch (RocksDBException e) {
        throw new StorageException("reading the newest chunk of " + ref + " failed: "
            + e.getMessage(), e);
      } finally {
        rocks.partitionLock.readLock().unlock();
      }
      for (int i = 0; i < run.size(); i++) {
        max = Math.max(max, run.timestampMs(i));
      }
    }
    ref.maxTimestampMs = max;
    ref.maxKnown = true;
  }

  /**
   * @return the raw bits stored for {@code ts} in the series' head or chunks, or null. Checks the
   *     head before the chunks, so a concurrent flush moving samples from one to the other cannot
   *     hide a sample (it writes the chunks and raises the series' chunk version before it drops
   *     them from the head). The window's chunks are decoded once and kept in {@link #stored}
   *     across calls while the version and the store's epoch stay unchanged.
   */
  private Long storedBits(SeriesRef ref, long ts, long nowMs) throws RocksDBException {
    synchronized (ref) {
      if (ref.head != null) {
        Long b = ref.head.bitsAt(ts);
        if (b != null) {
          return b;
        }
      }
    }
    // Read after the head check: if a flush dropped samples from the head since, these moved.
    long version = ref.chunkVersion;
    long epoch = core.chunkEpoch;
    long ws = StoreCore.windowStart(ts);
    StoredWindowCache.Entry cached = stored.get(ref, ws, version, epoch, nowMs);
    if (cached == null) {
      SampleRun run = windowScratch;
      run.clear();
      rocks.partitionLock.readLock().lock();
      try {
        ColumnFamilyHandle cf = rocks.partition(PartitionKind.CHUNKS, ws);
        if (cf != null) {
          ChunkReads.read(rocks, cf, ref.id, ws, ws + TimeSeriesStore.WINDOW_MS - 1, run, false);
        }
      } finally {
        rocks.partitionLock.readLock().unlock();
      }
      run.sortAndDedupe();
      cached = stored.put(ref, ws, version, epoch, run, nowMs);
      if (run.size() > 4096) {
        windowScratch = new SampleRun(512); // do not keep a rare dense window's arrays
      }
    }
    return cached.bitsAt(ts);
  }

  /** Drops the cached chunk windows; called by {@link TimeSeriesStore#close()}. */
  void clearStoredWindows() {
    appendLock.lock();
    try {
      stored.clear();
    } finally {
      appendLock.unlock();
    }
  }

  /** Tests only: the cache of decoded chunk windows; read under the append lock. */
  StoredWindowCache storedWindows() {
    return stored;
  }

  private void putSeries(WriteBatch batch, SeriesRef ref) throws RocksDBException {
    // The one durable form of the index: label sets by id. Lookups by labels and postings
    // live in memory, rebuilt from it at open.
    batch.put(rocks.seriesById, Keys.be64(ref.id), ref.labels.encode());
  }

  /**
   * @return the value for a person and its raw bits, which decide conflicts: "42.0
   *     (0x4045000000000000)", "stale marker (0x7ff0000000000002)", "NaN (0x7ff8000000000000)"
   */
  private static String shownValue(long bits) {
    double v = Double.longBitsToDouble(bits);
    String shown = bits == RollupBlock.STALE_NAN_BITS ? "stale marker" : Double.toString(v);
    return shown + " (" + String.format("0x%016x", bits) + ")";
  }

}
