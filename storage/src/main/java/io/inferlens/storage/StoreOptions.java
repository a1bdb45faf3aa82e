package io.inferlens.storage;

import java.nio.file.Path;
import java.util.Objects;

/**
 * How to open a {@link TimeSeriesStore}.
 *
 * <p>Durability trade-off of {@code syncWal}: with {@code false} (the default) every acknowledged
 * append has its RocksDB WAL record written to the operating system's page cache before
 * {@code append} returns, so it survives a crash or {@code SIGKILL} of this process, but not a
 * kernel panic or power loss (the last few seconds of writes may be lost then). With {@code true}
 * every append also waits for {@code fsync} of the WAL, which survives power loss and costs one
 * disk flush per call (milliseconds on most disks, far more on network volumes).
 *
 * @param dataDir the directory holding the RocksDB files; created if missing
 * @param retentionMs how long samples are kept, in milliseconds, &gt; 0; older samples are
 *     rejected on append and removed by {@link TimeSeriesStore#enforceRetention(long)}
 * @param syncWal whether each append waits for an {@code fsync} of the WAL (see above)
 * @param blockCacheBytes size of the RocksDB block cache shared by all column families, in bytes,
 *     &ge; 0
 */
public record StoreOptions(Path dataDir, long retentionMs, boolean syncWal, long blockCacheBytes) {

  /** Default retention: 30 days in milliseconds. */
  public static final long DEFAULT_RETENTION_MS = 30L * 24 * 60 * 60 * 1000;

  /**
   * Default block cache: 64 MiB, enough to keep the index and filter blocks of a few million
   * series hot while staying small next to a typical 1-4 GiB heap budget of the whole process.
   */
  public static final long DEFAULT_BLOCK_CACHE_BYTES = 64L * 1024 * 1024;

  /**
   * Validates the options.
   *
   * @param dataDir the data directory
   * @param retentionMs retention in milliseconds
   * @param syncWal whether each append waits for a WAL fsync
   * @param blockCacheBytes block cache size in bytes
   * @throws NullPointerException if {@code dataDir} is null
   * @throws IllegalArgumentException if {@code retentionMs} &le; 0 or {@code blockCacheBytes} &lt; 0
   */
  public StoreOptions {
    Objects.requireNonNull(dataDir, "dataDir");
    if (retentionMs <= 0) {
      throw new IllegalArgumentException("retentionMs must be > 0, got " + retentionMs);
    }
    if (blockCacheBytes < 0) {
      throw new IllegalArgumentException("blockCacheBytes must be >= 0, got " + blockCacheBytes);
    }
  }

  /**
   * @param dataDir the data directory
   * @return options with 30 days retention, no fsync per append and a 64 MiB block cache
   */
  public static StoreOptions defaults(Path dataDir) {
    return new StoreOptions(dataDir, DEFAULT_RETENTION_MS, false, DEFAULT_BLOCK_CACHE_BYTES);
  }

  /**
   * @param newRetentionMs retention in milliseconds, &gt; 0
   * @return a copy with that retention
   */
  public StoreOptions withRetentionMs(long newRetentionMs) {
    return new StoreOptions(dataDir, newRetentionMs, syncWal, blockCacheBytes);
  }

  /**
   * @param newSyncWal whether each append waits for a WAL fsync
   * @return a copy with that setting
   */
  public StoreOptions withSyncWal(boolean newSyncWal) {
    return new StoreOptions(dataDir, retentionMs, newSyncWal, blockCacheBytes);
  }

  /**
   * @param newBlockCacheBytes block cache size in bytes, &ge; 0
   * @return a copy with that block cache size
   */
  public StoreOptions withBlockCacheBytes(long newBlockCacheBytes) {
    return new StoreOptions(dataDir, retentionMs, syncWal, newBlockCacheBytes);
  }
}
