package io.inferlens.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompressionType;
import org.rocksdb.ConfigOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.OptionsUtil;

/**
 * The column family options RocksDB actually persisted (its OPTIONS file), the properties and
 * the full compaction.
 */
class RocksTuningTest extends StoreTestBase {

  private static final LabelSet M = LabelSet.of("__name__", "m");

  /** RocksDB logs to the service's log: no LOG file grows in the data directory. */
  @Test
  void rocksDbWritesNoInfoLogIntoTheDataDirectory() throws Exception {
    try (TimeSeriesStore store = open(StoreOptions.defaults(dir))) {
      store.append(List.of(write(M, NOW_MS, 1)));
      store.flush();
      store.compact();
    }
    try (java.util.stream.Stream<java.nio.file.Path> files = java.nio.file.Files.list(dir)) {
      assertThat(files.map(p -> p.getFileName().toString()))
          .as("RocksDB's own info log files")
          .noneMatch(n -> n.equals("LOG") || n.startsWith("LOG.old"))
          .anyMatch(n -> n.endsWith(".sst"));
    }
  }

  @Test
  void compressionBlockAndMemtableSizesPerKindOfColumnFamily() throws Exception {
    try (TimeSeriesStore store = open(StoreOptions.defaults(dir))) {
      store.append(List.of(write(M, NOW_MS, 1)));
      store.flush();
    }
    List<ColumnFamilyDescriptor> cfs = new ArrayList<>();
    try (ConfigOptions config = new ConfigOptions();
        DBOptions db = new DBOptions()) {
      OptionsUtil.loadLatestOptions(config, dir.toString(), db, cfs);
      try {
        for (ColumnFamilyDescriptor d : cfs) {
          String name = new String(d.getName(), StandardCharsets.UTF_8);
          ColumnFamilyOptions o = d.getOptions();
          boolean rollup = name.startsWith("rollup");
          boolean partition = name.startsWith("chunks_") || rollup;
          assertThat(o.compressionPerLevel()).as(name).hasSize(7)
              .containsOnly(partition ? CompressionType.ZSTD_COMPRESSION
                  : CompressionType.LZ4_COMPRESSION);
          assertThat(((org.rocksdb.BlockBasedTableConfig) o.tableFormatConfig()).blockSize())
              .as(name + " block size").isEqualTo(partition ? 32L << 10 : 4L << 10);
          assertThat(o.bottommostCompressionType()).as(name)
              .isEqualTo(CompressionType.ZSTD_COMPRESSION);
          boolean log = name.equals(Keys.CF_HEAD_LOG);
          assertThat(o.writeBufferSize()).as(name)
              .isEqualTo(log ? 32L << 20 : partition ? 8L << 20 : 4L << 20);
          assertThat(o.maxWriteBufferNumber()).as(name).isEqualTo(2);
          assertThat(o.optimizeFiltersForHits()).as(name).isEqualTo(partition);
        }
      } finally {
        for (ColumnFamilyDescriptor d : cfs) {
          d.getOptions().close();
        }
      }
    }
    // default, 4 fixed (series_by_id, meta, head_log, journal), and the chunk, 5 m and 1 h
    // partitions of NOW_MS.
    assertThat(cfs).hasSize(8);
  }

  /**
   * Every column family reports the one shared block cache's usage whole; summing it over the
   * column families (as the property's first version did) multiplied it by their count. The
   * cache holds the memtables' charges (write buffer manager) and at most its capacity of blocks.
   */
  @Test
  void blockCacheUsageIsTheSharedCacheCountedOnce() throws Exception {
    long capacity = 1 << 20;
    try (TimeSeriesStore store = open(StoreOptions.defaults(dir).withBlockCacheBytes(capacity))) {
      List<SeriesWrite> writes = new ArrayList<>();
      for (int day = 0; day < 5; day++) { // five daily partitions, each with its own memtable
        writes.add(write(LabelSet.of("__name__", "m", "day", Integer.toString(day)),
            NOW_MS - day * 86_400_000L, day));
      }
      store.append(writes);
      store.flush();
      store.select(List.of(Matcher.eq("__name__", "m")), 0, Long.MAX_VALUE);
      store.append(List.of(write(M, NOW_MS - 1, 1)));
      Map<String, Long> p = store.rocksProperties();
      long memtables = p.get("rocksdb.cur-size-all-mem-tables");
      assertThat(p.get("rocksdb.block-cache-usage"))
          .as("usage with %d bytes of memtables", memtables)
          .isPositive()
          .isLessThanOrEqualTo(memtables + capacity + (1 << 20));
    }
  }

  @Test
  void propertiesAndCompactionKeepEverySample() throws Exception {
    try (TimeSeriesStore store = open(StoreOptions.defaults(dir).withBlockCacheBytes(1 << 20))) {
      store.append(List.of(write(M, NOW_MS - 20, 1, NOW_MS - 10, 2, NOW_MS, 3)));
      Map<String, Long> before = store.rocksProperties();
      assertThat(before.keySet()).containsExactlyElementsOf(TimeSeriesStore.ROCKS_PROPERTIES);
      assertThat(before.get("rocksdb.total-sst-files-size")).isZero();
      assertThat(before.get("rocksdb.estimate-num-keys")).isPositive();

      store.compact();

      Map<String, Long> after = store.rocksProperties();
      assertThat(after.get("rocksdb.total-sst-files-size")).isPositive();
      assertThat(after.get("rocksdb.estimate-pending-compaction-bytes")).isZero();
      assertThat(store.select(List.of(Matcher.eq("__name__", "m")), 0, Long.MAX_VALUE).get(0)
          .timestampsMs()).containsExactly(NOW_MS - 20, NOW_MS - 10, NOW_MS);
    }
  }
}
