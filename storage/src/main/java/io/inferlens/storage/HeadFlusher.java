package io.inferlens.storage;

import io.inferlens.storage.head.HeadBuffer;
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
 * Head flush (head to chunks), as Prometheus tsdb's head compaction into a block: cuts every
 * series' head buffer, encodes the samples before the cut into chunks cut at 2-hour windows,
 * writes them in batches and truncates the head log with the last batch.
 *
 * <p>Thread safety: one flush at a time under the flush lock ({@link StoreLocks}); it takes the
 * append lock only to cut the heads and count samples.
 */
final class HeadFlusher {

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

  /** Head-flush pieces shorter than this are encoded without planning, see writeChunk. */
  private static final int FAST_ENCODE_BELOW = 120;

  HeadFlusher(StoreCore core) {
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
  }

  /**
   * Moves every head sample into chunks: marks a cut in each series' head buffer under the append
   * lock (a few milliseconds for 100,000 series), encodes the samples before the cut into chunks
   * cut at {@link #WINDOW_MS}, writes the chunks and the windows to finalize in RocksDB batches of
   * about 200,000 samples, the last of which truncates the head log (a crash before it replays
   * samples already in chunks; finalization drops such duplicates), and then drops those samples
   * from the head. Appends go on meanwhile, into the same buffers after the cut: one buffer per
   * series instead of a second one per series for the flush (~27 MB of heap at 100,000 series).
   * A series whose buffer stayed empty since the last flush gives it up. A window whose every
   * sample is in the flush (none stored before, {@link SeriesRef#chunksEndMs}; a later sample of
   * the series present) and that is closed as finalization closes windows is written final with
   * its rollups instead of being marked: finalization would only read it back to compute them.
   * Samples older than the retention horizon are dropped instead of written. Reads see the
   * samples throughout, in the head until the chunks are written.
   *
   * @throws StorageException if RocksDB fails or the store is closed; the samples then stay in
   *     the head, and the log still holds them
   */
  public void flushHead() throws StorageException {
    lifecycle.readLock().lock();
    flushLock.lock();
    try {
      core.ensureOpen();
      List<SeriesRef> refs = new ArrayList<>();
      int[] cuts = new int[64];
      long seqCut;
      appendLock.lock();
      try {
        seqCut = core.nextLogSeq;
        for (SeriesRef ref : index.all()) {
          synchronized (ref) {
            HeadBuffer head = ref.head;
            if (head == null) {
              continue;
            }
            if (head.size() == 0) {
              ref.head = null; // idle since the last flush: a churned-away series frees it
              continue;
            }
            if (refs.size() == cuts.length) {
              cuts = java.util.Arrays.copyOf(cuts, 2 * cuts.length);
            }
            cuts[refs.size()] = head.cut();
            refs.add(ref);
          }
        }
        core.flushingSamples = core.headSamples;
        core.headSamples = 0;
        core.headSinceMs = Long.MAX_VALUE;
        core.flushingMinTs = core.headMinTs;
        core.headMinTs = Long.MAX_VALUE;
      } finally {
        appendLock.unlock();
      }
      if (refs.isEmpty()) {
        core.flushingMinTs = Long.MAX_VALUE;
        return;
      }
      boolean merging = core.headMayOverlapChunks;
      try {
        writeChunks(refs, cuts, seqCut, merging);
      } catch (RocksDBException | RuntimeException e) {
        core.headMayOverlapChunks = true; // batches before the failure may be written
        restoreFlushing(refs);
        throw new StorageException("head flush of " + refs.size() + " series failed, the head"
            + " log keeps their samples: " + e.getMessage(), e);
      }
      boolean dropped = false;
      try {
        for (int i = 0, n = refs.size(); i < n; i++) {
          SeriesRef ref = refs.get(i);
          synchronized (ref) {
            ref.head.dropFirst(cuts[i]); // only this thread sets a flushed ref's head to null
          }
        }
        dropped = true;
      } finally {
        // Samples left in the head are in chunks too: the next flush must merge, not put.
        core.headMayOverlapChunks = !dropped || (core.headMayOverlapChunks && !merging);
      }
      core.flushingSamples = 0;
      core.flushingMinTs = Long.MAX_VALUE;
      compactTruncatedLog(seqCut);
    } finally {
      flushLock.unlock();
      lifecycle.readLock().unlock();
    }
  }

  /**
   * Log records usually die in the memtable (the range delete of a flush covers them before it
   * is written out), but a memtable flushed between two head flushes puts records in an SST
   * file, where they would stay until RocksDB happens to compact it. Compacting the truncated
   * range drops them at once (measured: 19 MB of a 34 MB store after the s2k-2880 bench).
   */
  void compactTruncatedLog(long seqCut) {
    try {
      if (rocks.db.getLongProperty(rocks.headLog, "rocksdb.total-sst-files-size") > 0) {
        rocks.db.compactRange(rocks.headLog, Keys.be64(0), Keys.be64(seqCut));
      }
    } catch (RocksDBException e) {
      LOG.log(System.Logger.Level.WARNING, "compacting the truncated head log failed; RocksDB"
          + " will drop the records in a later compaction", e);
    }
  }

  /** Counts the samples of a failed flush, which stayed in the head, as head samples again. */
  private void restoreFlushing(List<SeriesRef> refs) {
    appendLock.lock();
    try {
      for (SeriesRef ref : refs) {
        synchronized (ref) {
          ref.head.uncut();
        }
      }
      core.headSamples += core.flushingSamples;
      core.headSinceMs = Math.min(core.headSinceMs, clock.millis());
      core.flushingSamples = 0;
      core.headMinTs = Math.min(core.headMinTs, core.flushingMinTs);
      core.flushingMinTs = Long.MAX_VALUE;
    } finally {
      appendLock.unlock();
    }
  }

  /**
   * Series ids and window starts of the chunks a head flush writes, marked unfinalized once the
   * batch is durable; reused across flushes (guarded by {@link #flushLock}) instead of an object
   * per chunk that lived through the whole flush (100,000 per flush on the 100,000-series bench).
   */
  private long[] flushWindowIds = new long[1024];
  private long[] flushWindowStarts = new long[1024];

  private void writeChunks(List<SeriesRef> refs, int[] cuts, long seqCut, boolean merging)
      throws RocksDBException {
    long now = clock.millis();
    FlushScratch f = new FlushScratch(StoreCore.saturatedSubtract(now, options.retentionMs()),
        StoreCore.saturatedSubtract(Math.min(core.maxSeenMs, now), TimeSeriesStore.CLOSE_GRACE_MS),
        new RollupWriter(rocks, core.rewrittenRecords));
    rocks.partitionLock.readLock().lock();
    try (WriteBatch batch = new WriteBatch()) {
      // Deleted again by the last batch; when that is the first, the delete wins.
      batch.put(rocks.meta, Keys.META_FLUSH_PARTIAL, Keys.be64(seqCut));
      int batchFrom = 0;
      for (int i = 0, n = refs.size(); i < n; i++) {
        SeriesRef ref = refs.get(i);
        f.samplesInBatch += merging ? flushSeriesMerging(batch, f, ref, cuts[i])
            : flushSeries(batch, f, ref, cuts[i]);
        if (f.samplesInBatch >= FLUSH_BATCH_SAMPLES) {
          if (beforeFlushBatch != null) {
            beforeFlushBatch.run();
          }
          writeFlushBatch(batch, f);
          raiseChunkVersions(refs, batchFrom, i + 1);
          batchFrom = i + 1;
        }
      }
      for (Map.Entry<Long, Long> e : f.addedPerPartition.entrySet()) {
        AtomicLong c = partitionSamples.computeIfAbsent(e.getKey(), k -> new AtomicLong());
        long total = c.addAndGet(e.getValue());
        batch.put(rocks.partitionForWrite(PartitionKind.CHUNKS, e.getKey()),
            Keys.PARTITION_SAMPLE_COUNT, Keys.be64(total));
      }
      batch.deleteRange(rocks.headLog, Keys.be64(0), Keys.be64(seqCut));
      batch.put(rocks.meta, Keys.META_LOG_FLOOR, Keys.be64(seqCut));
      batch.delete(rocks.meta, Keys.META_FLUSH_PARTIAL);
      writeFlushBatch(batch, f);
      raiseChunkVersions(refs, batchFrom, refs.size());
    } finally {
      rocks.partitionLock.readLock().unlock();
    }
  }

  /**
   * Marks the chunk windows of {@code refs[from, to)} decoded for duplicate checks as stale
   * ({@link StoredWindowCache}): called after their chunks were written, before their samples are
   * dropped from the head.
   */
  private static void raiseChunkVersions(List<SeriesRef> refs, int from, int to) {
    for (int i = from; i < to; i++) {
      refs.get(i).chunkVersion++; // only the flushing thread writes it, under the flush lock
    }
  }

  /**
   * Samples per head-flush write batch. A flush of the 100,000-series bench's 2 M head samples
   * made one native batch of ~15 MB (its buffer grows by doubling) and a memtable insert of as
   * much; pieces of this size keep both to a few MB. Pieces are safe: the head log is truncated
   * only by the last one, and a crash or failure before it replays samples that are already in
   * chunks, which finalization merges away as duplicates.
   */
  static final int FLUSH_BATCH_SAMPLES = 200_000;

  /** Tests only: runs before each head-flush batch but the last is written (may throw). */
  volatile Runnable beforeFlushBatch;

  /** Writes one piece of a head flush and publishes its windows as unfinalized. */
  private void writeFlushBatch(WriteBatch batch, FlushScratch f) throws RocksDBException {
    f.rollups.finish(batch, f.codec);
    if (batch.count() > 0) {
      rocks.db.write(rocks.writeOptions, batch);
      batch.clear();
    }
    f.rollups.batchDone();
    for (int i = 0; i < f.windows; i++) {
      unfinalized.add(flushWindowIds[i], flushWindowStarts[i]);
    }
    f.windows = 0;
    f.samplesInBatch = 0;
    for (int i = 0; i < f.presenceCount; i++) {
      SeriesRef ref = f.presenceRefs[i];
      ref.presenceDay = Math.max(ref.presenceDay, f.presenceDays[i]);
      f.presenceRefs[i] = null;
    }
    f.presenceCount = 0;
  }

  /** Scratch state of one {@link #writeChunks} call. */
  private static final class FlushScratch {
    final long horizonMs;
    /** Windows ending at or before this (ms) are closed, as finalization closes them. */
    final long closedBeforeMs;
    /** Rollups of the windows this flush finalizes. */
    final RollupWriter rollups;
    final ChunkCodec codec = new ChunkCodec();
    final Map<Long, Long> addedPerPartition = new HashMap<>();
    long[] ts = new long[256];
    long[] bits = new long[256];
    /** Windows of the current batch, in {@link #flushWindowIds} / {@link #flushWindowStarts}. */
    int windows;
    int samplesInBatch;
    /** Presence keys put in the current batch: (series, day) pairs, applied once it is written. */
    SeriesRef[] presenceRefs = new SeriesRef[64];
    long[] presenceDays = new long[64];
    int presenceCount;

    FlushScratch(long horizonMs, long closedBeforeMs, RollupWriter rollups) {
      this.horizonMs = horizonMs;
      this.closedBeforeMs = closedBeforeMs;
      this.rollups = rollups;
    }

    /** @return whether the batch's last presence key was this series' for this day */
    boolean lastPresence(SeriesRef ref, long day) {
      int last = presenceCount - 1;
      return last >= 0 && presenceRefs[last] == ref && presenceDays[last] == day;
    }

    void addPresence(SeriesRef ref, long day) {
      if (presenceCount == presenceRefs.length) {
        presenceRefs = java.util.Arrays.copyOf(presenceRefs, 2 * presenceCount);
        presenceDays = java.util.Arrays.copyOf(presenceDays, 2 * presenceCount);
      }
      presenceRefs[presenceCount] = ref;
      presenceDays[presenceCount] = day;
      presenceCount++;
    }
  }

  /**
   * Cuts the first {@code n} head samples of one series (those before the flush's cut) into a
   * chunk per window and adds them to the batch. Kept apart from {@link #writeChunks} (and the
   * cut loop in {@link #chunkEnd}) so that C2 compiles it once as a method instead of
   * on-stack-replacing the flush loop several times.
   */
  private int flushSeries(WriteBatch batch, FlushScratch f, SeriesRef ref, int n)
      throws RocksDBException {
    if (n > f.ts.length) {
      f.ts = new long[Math.max(n, 2 * f.ts.length)];
      f.bits = new long[f.ts.length];
    }
    long[] ts = f.ts;
    long[] bits = f.bits;
    long headNewest;
    synchronized (ref) { // appends go on after the cut
      ref.head.decodePrefix(n, ts, bits);
      headNewest = ref.head.maxTimestampMs();
    }
    int from = 0;
    while (from < n) {
      long ws = StoreCore.windowStart(ts[from]);
      long we = ws + TimeSeriesStore.WINDOW_MS;
      int to = chunkEnd(ts, from, n, we);
      if (ts[to - 1] >= f.horizonMs) {
        // A window that will hold another chunk is merged and re-encoded by finalization, so
        // this piece's coding is short-lived: an earlier piece waits for finalization, the piece
        // was cut at MAX_SAMPLES, or the head holds a later sample of the window (appended
        // after the cut, flushed next time).
        boolean mergedLater = unfinalized.contains(ref.id, ws)
            || (to < n && ts[to] < we)
            || (headNewest > ts[to - 1] && headNewest < we);
        if (!mergedLater && ws >= ref.chunksEndMs && we <= f.closedBeforeMs
            && (to < n || headNewest >= we) && ascending(ts, from, to)) {
          // The flush holds the whole of a closed window (no chunk of it is stored, and the
          // series has a later sample): write it final, with its rollups, instead of marking
          // it for finalization to read back. A sample of it appended later marks it again.
          long[] t = from == 0 ? ts : java.util.Arrays.copyOfRange(ts, from, to);
          long[] b = from == 0 ? bits : java.util.Arrays.copyOfRange(bits, from, to);
          writeChunk(batch, f, ref, t, b, 0, to - from, ws, false, false);
          f.rollups.add(batch, ref.id, ws, t, b, to - from, f.codec);
          countSamples(f, ws, to - from);
        } else {
          // Retention runs by whole partitions; a few samples before the horizon are kept.
          writeChunk(batch, f, ref, ts, bits, from, to, ws, mergedLater, true);
          noteWindow(f, ref, ws, to - from);
        }
      }
      from = to;
    }
    return n;
  }

  /** @return whether {@code ts[from, to)} is strictly ascending (a window's final chunk is) */
  private static boolean ascending(long[] ts, int from, int to) {
    for (int i = from + 1; i < to; i++) {
      if (ts[i] <= ts[i - 1]) {
        return false;
      }
    }
    return true;
  }

  /** Counts a flushed window's samples in its partition's sample count. */
  private void countSamples(FlushScratch f, long ws, int samples) {
    f.addedPerPartition.merge(PartitionKind.CHUNKS.partitionStart(ws), (long) samples,
        Long::sum);
  }

  /** Counts a flushed window's samples and remembers it for finalization. */
  private void noteWindow(FlushScratch f, SeriesRef ref, long ws, int samples) {
    countSamples(f, ws, samples);
    int w = f.windows;
    if (w == flushWindowIds.length) {
      flushWindowIds = java.util.Arrays.copyOf(flushWindowIds, 2 * w);
      flushWindowStarts = java.util.Arrays.copyOf(flushWindowStarts, 2 * w);
    }
    flushWindowIds[w] = ref.id;
    flushWindowStarts[w] = ws;
    f.windows = w + 1;
  }

  /**
   * {@link #flushSeries} when the head may hold samples that are in chunks already
   * ({@link #headMayOverlapChunks}): each window's head samples are merged with the window's
   * stored chunks, which are deleted, and written again as chunks of at most
   * {@link ChunkCodec#MAX_SAMPLES}, as finalization does. One seek per series and window, only in
   * the first flush after a failed or cut-short one.
   */
  private int flushSeriesMerging(WriteBatch batch, FlushScratch f, SeriesRef ref, int n)
      throws RocksDBException {
    long[] ts = new long[n];
    long[] bits = new long[n];
    synchronized (ref) {
      ref.head.decodePrefix(n, ts, bits);
    }
    SampleRun run = new SampleRun(64);
    List<byte[]> keys = new ArrayList<>();
    int from = 0;
    while (from < n) {
      long ws = StoreCore.windowStart(ts[from]);
      int to = from + 1;
      while (to < n && ts[to] < ws + TimeSeriesStore.WINDOW_MS) {
        to++;
      }
      if (ts[to - 1] >= f.horizonMs) {
        run.clear();
        keys.clear();
        ColumnFamilyHandle cf = rocks.partition(PartitionKind.CHUNKS, ws);
        if (cf != null) {
          ChunkReads.read(
              rocks, cf, ref.id, ws, ws + TimeSeriesStore.WINDOW_MS - 1, run, false, keys);
          for (byte[] k : keys) {
            batch.delete(cf, k); // a put of the same key later in the batch wins
          }
        }
        for (int i = from; i < to; i++) {
          run.add(ts[i], bits[i]);
        }
        run.sortAndDedupe();
        long[] t = run.timestampsArray();
        long[] b = run.valuesArray();
        for (int p = 0; p < run.size(); p += ChunkCodec.MAX_SAMPLES) {
          int q = Math.min(run.size(), p + ChunkCodec.MAX_SAMPLES);
          writeChunk(batch, f, ref, t, b, p, q, ws, false, true);
        }
        noteWindow(f, ref, ws, to - from);
      }
      from = to;
    }
    return n;
  }

  /**
   * @return the end (exclusive) of the chunk starting at {@code from}: the first sample at or
   *     after {@code windowEndMs}, or {@link ChunkCodec#MAX_SAMPLES} samples on, or {@code n}
   */
  private static int chunkEnd(long[] ts, int from, int n, long windowEndMs) {
    int limit = Math.min(n, from + ChunkCodec.MAX_SAMPLES);
    int to = from + 1;
    while (to < limit && ts[to] < windowEndMs) {
      to++;
    }
    return to;
  }

  /**
   * Encodes one piece of a window and adds it with the window's marks to the batch.
   *
   * @param mergedLater whether the window will certainly hold another chunk, so that
   *     finalization merges and re-encodes this one: then it is encoded without planning
   * @param mark whether to mark the window for finalization (false: the flush finalizes it)
   */
  private void writeChunk(WriteBatch batch, FlushScratch f, SeriesRef ref, long[] ts,
      long[] bits, int from, int to, long ws, boolean mergedLater, boolean mark)
      throws RocksDBException {
    ChunkCodec codec = f.codec;
    long[] t = from == 0 ? ts : java.util.Arrays.copyOfRange(ts, from, to);
    long[] b = from == 0 ? bits : java.util.Arrays.copyOfRange(bits, from, to);
    ColumnFamilyHandle cf = rocks.partitionForWrite(PartitionKind.CHUNKS, ws);
    int n = to - from;
    // Short pieces are almost always fragments that finalization merges and re-encodes: skip the
    // search for the smallest value coding for them (it costs more than the bytes it saves), and
    // for pieces that finalization certainly re-encodes; never for a window written final.
    byte[] chunk = (n < FAST_ENCODE_BELOW && mark) || mergedLater
        ? codec.encodeFast(t, b, n) : codec.encode(t, b, n);
    batch.put(cf, Keys.dataKey(ref.id, t[0]), chunk);
    // Raised before the batch is written: a failed write leaves it too high, which only keeps
    // later flushes from finalizing this window themselves.
    ref.chunksEndMs = Math.max(ref.chunksEndMs, t[n - 1] + 1);
    // A window still marked (in memory, so its stored mark too) needs no second mark: every
    // flush of a live series hits the same window, and these puts were half of a flush's
    // records. Finalization deletes a stored mark only under flushLock, which this flush holds.
    if (mark && !unfinalized.contains(ref.id, ws)) {
      batch.put(cf, Keys.unfinalizedKey(ref.id, ws), Keys.empty());
    }
    long day = Math.floorDiv(ws, 86_400_000L);
    if (ref.presenceDay != day && !f.lastPresence(ref, day)) {
      batch.put(cf, Keys.presentKey(ref.id), Keys.empty());
      // Remembered on the series only once the batch is written (writeFlushBatch): a failed
      // write must not leave the series believing its presence key is stored.
      f.addPresence(ref, day);
    }
  }
}
