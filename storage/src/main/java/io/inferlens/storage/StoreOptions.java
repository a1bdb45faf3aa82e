package io.inferlens.storage;

import io.inferlens.storage.head.HeadBuffer;
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
 * @param rollup5mRetentionMs how long 5-minute rollups are kept, milliseconds, &gt; 0
 * @param rollup1hRetentionMs how long 1-hour rollups are kept, milliseconds, &gt; 0
 * @param headMaxSamples head samples (not yet in chunks) that trigger a head flush, &ge; 1; the
 *     head keeps samples compressed ({@code HeadBuffer}): about 5 bytes per sample on the
 *     bench's vLLM/DCGM series (at most about 19) plus about 100 bytes per series in the head,
 *     so the default 2 M costs about 10 MiB beside the per-series objects
 * @param seriesLimits the active-series limits the append path enforces (default
 *     {@link SeriesLimits#DEFAULTS}); not null
 * @param minFreeDiskBytes the free-space floor, bytes, &ge; 0: writes are refused while the
 *     data directory's file system has less free, and resume at this plus a margin of up to
 *     32 MiB ({@link FreeSpaceFloor}; the server's stores use
 *     {@link #DEFAULT_MIN_FREE_DISK_BYTES}). Nothing is written to disk for it. 0, the default
 *     of the shorter constructors: no floor, and writes on a full disk fail and recover as
 *     RocksDB's do
 */
public record StoreOptions(
    Path dataDir,
    long retentionMs,
    boolean syncWal,
    long blockCacheBytes,
    long rollup5mRetentionMs,
    long rollup1hRetentionMs,
    int headMaxSamples,
    SeriesLimits seriesLimits,
    long minFreeDiskBytes) {

  /** Default retention: 30 days in milliseconds. */
  public static final long DEFAULT_RETENTION_MS = 30L * 24 * 60 * 60 * 1000;

  /**
   * Default block cache: 32 MiB. It also carries the memtables' charges (the write buffer
   * manager counts them against it), so under sustained ingest it mostly holds index and filter
   * blocks. Measured on the 100,000-series bench set (docs/BENCHMARKS.md, "fifth pass"): peak RSS
   * 15-35 MiB lower than with 64 MiB, ingest CPU unchanged.
   */
  public static final long DEFAULT_BLOCK_CACHE_BYTES = 32L * 1024 * 1024;

  /** Default retention of 5-minute rollups: 90 days in milliseconds. */
  public static final long DEFAULT_ROLLUP_5M_RETENTION_MS = 90L * 24 * 60 * 60 * 1000;

  /** Default retention of 1-hour rollups: 2 years (730 days) in milliseconds. */
  public static final long DEFAULT_ROLLUP_1H_RETENTION_MS = 730L * 24 * 60 * 60 * 1000;

  /** Default head flush threshold: 2,000,000 samples. */
  public static final int DEFAULT_HEAD_MAX_SAMPLES = 2_000_000;

  /**
   * Free-space floor of the server's stores: 64 MiB. With ingest stopped there, memtable
   * flushes do not fail for lack of space, so the WAL fits the memtables and a restart needs
   * under 1 MiB free (32 KiB measured); the floor leaves room for flushes and compactions that run
   * after ingest stops, and for a few such restarts ({@link FreeSpaceFloor}).
   */
  public static final long DEFAULT_MIN_FREE_DISK_BYTES = 64L << 20;

  /**
   * Validates the options.
   *
   * @param dataDir the data directory
   * @param retentionMs retention in milliseconds
   * @param syncWal whether each append waits for a WAL fsync
   * @param blockCacheBytes block cache size in bytes
   * @param rollup5mRetentionMs 5-minute rollup retention in milliseconds
   * @param rollup1hRetentionMs 1-hour rollup retention in milliseconds
   * @param headMaxSamples head flush threshold in samples
   * @param seriesLimits the active-series limits
   * @param minFreeDiskBytes the free-space floor in bytes, 0 for none
   * @throws NullPointerException if {@code dataDir} or {@code seriesLimits} is null
   * @throws IllegalArgumentException if a retention is &le; 0, {@code blockCacheBytes} &lt; 0,
   *     {@code headMaxSamples} &lt; 1 or {@code minFreeDiskBytes} &lt; 0
   */
  public StoreOptions {
    Objects.requireNonNull(dataDir, "dataDir");
    Objects.requireNonNull(seriesLimits, "seriesLimits");
    if (retentionMs <= 0) {
      throw new IllegalArgumentException("retentionMs must be > 0, got " + retentionMs);
    }
    if (blockCacheBytes < 0) {
      throw new IllegalArgumentException("blockCacheBytes must be >= 0, got " + blockCacheBytes);
    }
    if (rollup5mRetentionMs <= 0) {
      throw new IllegalArgumentException(
          "rollup5mRetentionMs must be > 0, got " + rollup5mRetentionMs);
    }
    if (rollup1hRetentionMs <= 0) {
      throw new IllegalArgumentException(
          "rollup1hRetentionMs must be > 0, got " + rollup1hRetentionMs);
    }
    if (headMaxSamples < 1) {
      throw new IllegalArgumentException("headMaxSamples must be >= 1, got " + headMaxSamples);
    }
    if (minFreeDiskBytes < 0) {
      throw new IllegalArgumentException(
          "minFreeDiskBytes must be >= 0, got " + minFreeDiskBytes);
    }
  }

  /**
   * The first eight options without a free-space floor.
   *
   * @param dataDir the data directory
   * @param retentionMs retention in milliseconds, &gt; 0
   * @param syncWal whether each append waits for a WAL fsync
   * @param blockCacheBytes block cache size in bytes, &ge; 0
   * @param rollup5mRetentionMs 5-minute rollup retention in milliseconds, &gt; 0
   * @param rollup1hRetentionMs 1-hour rollup retention in milliseconds, &gt; 0
   * @param headMaxSamples head flush threshold in samples, &ge; 1
   * @param seriesLimits the active-series limits, not null
   * @throws IllegalArgumentException as the canonical constructor
   */
  public StoreOptions(Path dataDir, long retentionMs, boolean syncWal, long blockCacheBytes,
      long rollup5mRetentionMs, long rollup1hRetentionMs, int headMaxSamples,
      SeriesLimits seriesLimits) {
    this(dataDir, retentionMs, syncWal, blockCacheBytes, rollup5mRetentionMs,
        rollup1hRetentionMs, headMaxSamples, seriesLimits, 0);
  }

  /**
   * The first seven options with the default series limits.
   *
   * @param dataDir the data directory
   * @param retentionMs retention in milliseconds, &gt; 0
   * @param syncWal whether each append waits for a WAL fsync
   * @param blockCacheBytes block cache size in bytes, &ge; 0
   * @param rollup5mRetentionMs 5-minute rollup retention in milliseconds, &gt; 0
   * @param rollup1hRetentionMs 1-hour rollup retention in milliseconds, &gt; 0
   * @param headMaxSamples head flush threshold in samples, &ge; 1
   * @throws IllegalArgumentException as the canonical constructor
   */
  public StoreOptions(Path dataDir, long retentionMs, boolean syncWal, long blockCacheBytes,
      long rollup5mRetentionMs, long rollup1hRetentionMs, int headMaxSamples) {
    this(dataDir, retentionMs, syncWal, blockCacheBytes, rollup5mRetentionMs,
        rollup1hRetentionMs, headMaxSamples, SeriesLimits.DEFAULTS);
  }

  /**
   * The first four options with the defaults for the rest.
   *
   * @param dataDir the data directory
   * @param retentionMs raw retention in milliseconds, &gt; 0
   * @param syncWal whether each append waits for a WAL fsync
   * @param blockCacheBytes block cache size in bytes, &ge; 0
   * @throws IllegalArgumentException as the canonical constructor
   */
  public StoreOptions(Path dataDir, long retentionMs, boolean syncWal, long blockCacheBytes) {
    this(dataDir, retentionMs, syncWal, blockCacheBytes, DEFAULT_ROLLUP_5M_RETENTION_MS,
        DEFAULT_ROLLUP_1H_RETENTION_MS, DEFAULT_HEAD_MAX_SAMPLES);
  }

  /**
   * @param dataDir the data directory
   * @return options with 30 days retention, no fsync per append and a 32 MiB block cache
   */
  public static StoreOptions defaults(Path dataDir) {
    return new StoreOptions(dataDir, DEFAULT_RETENTION_MS, false, DEFAULT_BLOCK_CACHE_BYTES);
  }

  /**
   * @param fiveMinuteMs 5-minute rollup retention in milliseconds, &gt; 0
   * @param oneHourMs 1-hour rollup retention in milliseconds, &gt; 0
   * @return a copy with those rollup retentions
   */
  public StoreOptions withRollupRetentionMs(long fiveMinuteMs, long oneHourMs) {
    return new StoreOptions(dataDir, retentionMs, syncWal, blockCacheBytes, fiveMinuteMs,
        oneHourMs, headMaxSamples, seriesLimits, minFreeDiskBytes);
  }

  /**
   * @param samples head flush threshold in samples, &ge; 1
   * @return a copy with that threshold
   */
  public StoreOptions withHeadMaxSamples(int samples) {
    return new StoreOptions(dataDir, retentionMs, syncWal, blockCacheBytes, rollup5mRetentionMs,
        rollup1hRetentionMs, samples, seriesLimits, minFreeDiskBytes);
  }

  /**
   * @param newRetentionMs retention in milliseconds, &gt; 0
   * @return a copy with that retention
   */
  public StoreOptions withRetentionMs(long newRetentionMs) {
    return new StoreOptions(dataDir, newRetentionMs, syncWal, blockCacheBytes,
        rollup5mRetentionMs, rollup1hRetentionMs, headMaxSamples, seriesLimits, minFreeDiskBytes);
  }

  /**
   * @param newSyncWal whether each append waits for a WAL fsync
   * @return a copy with that setting
   */
  public StoreOptions withSyncWal(boolean newSyncWal) {
    return new StoreOptions(dataDir, retentionMs, newSyncWal, blockCacheBytes,
        rollup5mRetentionMs, rollup1hRetentionMs, headMaxSamples, seriesLimits, minFreeDiskBytes);
  }

  /**
   * @param newBlockCacheBytes block cache size in bytes, &ge; 0
   * @return a copy with that block cache size
   */
  public StoreOptions withBlockCacheBytes(long newBlockCacheBytes) {
    return new StoreOptions(dataDir, retentionMs, syncWal, newBlockCacheBytes,
        rollup5mRetentionMs, rollup1hRetentionMs, headMaxSamples, seriesLimits, minFreeDiskBytes);
  }

  /**
   * @param limits the active-series limits, not null
   * @return a copy enforcing them
   */
  public StoreOptions withSeriesLimits(SeriesLimits limits) {
    return new StoreOptions(dataDir, retentionMs, syncWal, blockCacheBytes, rollup5mRetentionMs,
        rollup1hRetentionMs, headMaxSamples, limits, minFreeDiskBytes);
  }

  /**
   * @param bytes the free-space floor in bytes, &ge; 0; 0 for none ({@link FreeSpaceFloor})
   * @return a copy with that floor
   */
  public StoreOptions withMinFreeDiskBytes(long bytes) {
    return new StoreOptions(dataDir, retentionMs, syncWal, blockCacheBytes, rollup5mRetentionMs,
        rollup1hRetentionMs, headMaxSamples, seriesLimits, bytes);
  }

  /**
   * @param dir another data directory, not null (a tenant's store under the server's)
   * @return a copy with every other option unchanged
   */
  public StoreOptions withDataDir(Path dir) {
    return new StoreOptions(dir, retentionMs, syncWal, blockCacheBytes, rollup5mRetentionMs,
        rollup1hRetentionMs, headMaxSamples, seriesLimits, minFreeDiskBytes);
  }
}
