package io.inferlens.storage;

import io.inferlens.storage.head.HeadBuffer;
import io.inferlens.storage.head.HeadLog;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * Open-time loading of a store: checks the format version (or initializes a new store),
 * rebuilds the in-memory index from {@code series_by_id}, reads each chunk partition's presence
 * markers, pending windows and sample counter, and replays the head log into the head, as
 * Prometheus tsdb's {@code head_wal.go} replays its WAL. Runs once, before the store is shared.
 */
final class HeadReplay {

  private final StoreCore core;
  private final StoreOptions options;
  private final Clock clock;
  private final RocksHandles rocks;
  private final SeriesIndex index;
  private final WindowMarks unfinalized;
  private final Map<Long, AtomicLong> partitionSamples;

  HeadReplay(StoreCore core) {
    this.core = core;
    this.options = core.options;
    this.clock = core.clock;
    this.rocks = core.rocks;
    this.index = core.index;
    this.unfinalized = core.unfinalized;
    this.partitionSamples = core.partitionSamples;
  }

  /** Checks the format version (or initializes a new store), rebuilds the index, replays. */
  void load() throws RocksDBException, StorageException {
    byte[] version = rocks.db.get(rocks.meta, Keys.META_FORMAT_VERSION);
    if (version == null) {
      if (hasAnyKey(rocks.seriesById)) {
        throw new StorageException(
            "data directory " + options.dataDir() + " has series but no format version:"
                + " not an InferLens store, or corrupted",
            null);
      }
      // A new store: version and first id in one synced batch, so a crash leaves all or nothing.
      try (WriteBatch batch = new WriteBatch();
          WriteOptions sync = new WriteOptions().setSync(true)) {
        batch.put(rocks.meta, Keys.META_FORMAT_VERSION, Keys.be32(Keys.FORMAT_VERSION));
        batch.put(rocks.meta, Keys.META_NEXT_SERIES_ID, Keys.be64(Keys.FIRST_SERIES_ID));
        rocks.db.write(sync, batch);
      }
      core.nextSeriesId = Keys.FIRST_SERIES_ID;
      return;
    }
    int found = version.length == 4 ? Keys.getBe32(version) : -1;
    if (found != Keys.FORMAT_VERSION) {
      throw new StorageException(
          "data directory " + options.dataDir() + " has storage format version "
              + (found == -1 ? "(unreadable, " + version.length + " bytes)" : found)
              + " but this build reads only version " + Keys.FORMAT_VERSION
              + "; use a matching InferLens release or a new data directory",
          null);
    }
    byte[] next = rocks.db.get(rocks.meta, Keys.META_NEXT_SERIES_ID);
    if (next == null || next.length != 8) {
      throw new StorageException("corrupt store: meta key next_series_id missing or malformed",
          null);
    }
    core.nextSeriesId = Keys.getBe64(next, 0);
    long maxId = 0;
    var chunkDays = rocks.partitions(PartitionKind.CHUNKS, Long.MIN_VALUE / 2, Long.MAX_VALUE / 2);
    // Every loaded series' chunks lie before the end of the newest chunk partition.
    long chunksEnd = chunkDays.isEmpty() ? SeriesRef.NO_SAMPLES
        : chunkDays.lastKey() + PartitionKind.CHUNKS.lengthMs;
    try (RocksIterator series = rocks.db.newIterator(rocks.seriesById)) {
      // series_by_id iterates in ascending id order, which Postings requires.
      for (series.seekToFirst(); series.isValid(); series.next()) {
        long id = Keys.getBe64(series.key(), 0);
        SeriesRef ref = new SeriesRef(id, LabelSet.decode(series.value()), SeriesRef.NO_SAMPLES);
        ref.chunksEndMs = chunksEnd;
        index.add(ref);
        maxId = id;
      }
      series.status();
    }
    if (maxId >= core.nextSeriesId) {
      throw new StorageException(
          "corrupt store: series id " + maxId + " exists but next_series_id is "
              + core.nextSeriesId,
          null);
    }
    loadPartitions();
    replayHeadLog();
    core.headMayOverlapChunks = rocks.db.get(rocks.meta, Keys.META_FLUSH_PARTIAL) != null;
    core.lastAppendMs = clock.millis(); // idleness counts from the open
  }

  /** Reads each chunk partition's presence markers, pending windows and sample counter. */
  private void loadPartitions() throws RocksDBException {
    for (Map.Entry<Long, ColumnFamilyHandle> p :
        rocks.partitions(PartitionKind.CHUNKS, Long.MIN_VALUE / 2, Long.MAX_VALUE / 2)
            .entrySet()) {
      long start = p.getKey();
      long end = start + PartitionKind.CHUNKS.lengthMs - 1;
      ColumnFamilyHandle cf = p.getValue();
      byte[] count = rocks.db.get(cf, Keys.PARTITION_SAMPLE_COUNT);
      partitionSamples.put(start, new AtomicLong(count == null ? 0 : Keys.getBe64(count, 0)));
      try (RocksIterator it = rocks.db.newIterator(cf)) {
        for (it.seek(new byte[] {Keys.PREFIX_PRESENT}); it.isValid(); it.next()) {
          byte[] k = it.key();
          if (k[0] != Keys.PREFIX_PRESENT) {
            break;
          }
          SeriesRef ref = index.byId(Keys.keySeriesId(k));
          if (ref != null) {
            ref.widenBounds(start, end);
            ref.presenceDay = Math.max(ref.presenceDay, Math.floorDiv(start, 86_400_000L));
          }
        }
        it.status();
        for (it.seek(new byte[] {Keys.PREFIX_UNFINALIZED}); it.isValid(); it.next()) {
          byte[] k = it.key();
          if (k[0] != Keys.PREFIX_UNFINALIZED) {
            break;
          }
          unfinalized.add(Keys.keySeriesId(k), Keys.keyTimestampMs(k));
        }
        it.status();
      }
    }
  }

  /** Replays the head log into the head buffers, in sequence order. */
  private void replayHeadLog() throws RocksDBException, StorageException {
    byte[] floor = rocks.db.get(rocks.meta, Keys.META_LOG_FLOOR);
    core.nextLogSeq = floor == null ? 0 : Keys.getBe64(floor, 0);
    long[] replayed = {0};
    try (RocksIterator it = rocks.db.newIterator(rocks.headLog)) {
      for (it.seekToFirst(); it.isValid(); it.next()) {
        long seq = Keys.getBe64(it.key(), 0);
        core.nextLogSeq = Math.max(core.nextLogSeq, seq + 1);
        try {
          HeadLog.decode(it.value(), (id, ts, bits) -> {
            SeriesRef ref = index.byId(id);
            if (ref == null) {
              throw new IllegalStateException("head-log record " + seq + " names series " + id
                  + ", which is not in series_by_id");
            }
            if (ref.head == null) {
              ref.head = new HeadBuffer();
            }
            if (ref.head.bitsAt(ts) == null) {
              ref.head.add(ts, bits);
              ref.widenBounds(ts, ts);
              replayed[0]++;
              if (ts < core.headMinTs) {
                core.headMinTs = ts;
              }
              if (ts > core.maxSeenMs) {
                core.maxSeenMs = ts;
              }
            }
          });
        } catch (IllegalStateException e) {
          throw new StorageException("corrupt store: " + e.getMessage(), e);
        }
      }
      it.status();
    }
    core.headSamples = replayed[0];
    if (core.headSamples > 0) {
      core.headSinceMs = clock.millis();
    }
  }

  private boolean hasAnyKey(ColumnFamilyHandle cf) {
    try (RocksIterator it = rocks.db.newIterator(cf)) {
      it.seekToFirst();
      return it.isValid();
    }
  }
}
