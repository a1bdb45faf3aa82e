package io.inferlens.storage;

import io.inferlens.storage.head.SampleRun;
import io.inferlens.storage.chunk.ChunkCodec;
import java.util.List;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;

/**
 * Reads the chunks of one series in one chunk partition, shared by the append path (conflict
 * checks), the flusher (merging), the finalizer and the queriers. Stateless apart from a
 * per-thread decode scratch; the caller holds the partition read lock while it uses the handle.
 */
final class ChunkReads {

  private ChunkReads() {}

  /** Chunk decode scratch of one reading thread. */
  private static final ThreadLocal<long[][]> SCRATCH = ThreadLocal.withInitial(
      () -> new long[][] {new long[ChunkCodec.MAX_SAMPLES], new long[ChunkCodec.MAX_SAMPLES]});

  /** As the overload below without collecting keys. */
  static int read(RocksHandles rocks, ColumnFamilyHandle cf, long id, long startMs,
      long endMs, SampleRun out, boolean firstOnly) throws RocksDBException {
    return read(rocks, cf, id, startMs, endMs, out, firstOnly, null);
  }

  /**
   * Decodes the chunks of series {@code id} in one partition that may hold samples in
   * {@code [startMs, endMs]} and appends those samples to {@code out}.
   *
   * @param firstOnly stop after the first chunk that contributed a sample (existence checks)
   * @param keysOut if not null, receives the key of every chunk read
   * @return the number of chunks read
   */
  static int read(RocksHandles rocks, ColumnFamilyHandle cf, long id, long startMs,
      long endMs, SampleRun out, boolean firstOnly, List<byte[]> keysOut) throws RocksDBException {
    try (RocksIterator it = rocks.db.newIterator(cf)) {
      return read(it, id, startMs, endMs, out, firstOnly, keysOut);
    }
  }

  /**
   * As above with an iterator over the partition, reused across series: one iterator per
   * partition per read instead of one per series (iterator creation costs microseconds, which adds
   * up over thousands of series).
   */
  static int read(RocksIterator it, long id, long startMs, long endMs,
      SampleRun out, boolean firstOnly, List<byte[]> keysOut) throws RocksDBException {
    byte[] upper = endMs == Long.MAX_VALUE ? Keys.dataKey(id + 1, Long.MIN_VALUE)
        : Keys.dataKey(id, endMs + 1);
    long[][] scratch = SCRATCH.get();
    int chunks = 0;
    for (it.seek(Keys.dataKey(id, StoreCore.windowStart(startMs))); it.isValid(); it.next()) {
      byte[] key = it.key();
      if (java.util.Arrays.compareUnsigned(key, upper) >= 0) {
        break;
      }
      int n = ChunkCodec.decode(it.value(), scratch[0], scratch[1]);
      chunks++;
      if (keysOut != null) {
        keysOut.add(key);
      }
      int before = out.size();
      out.addRange(scratch[0], scratch[1], n, startMs, endMs);
      if (firstOnly && out.size() > before) {
        break;
      }
    }
    it.status();
    return chunks;
  }

}
