package io.inferlens.storage;

import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;

/**
 * The time-partitioned column families of the store: raw chunks by UTC day, and the 5 m and 1 h
 * rollups in longer partitions. A partition is one RocksDB column family named
 * {@code <prefix>_<yyyy-mm-dd>} after the UTC day it starts on; it holds every record whose
 * timestamp (chunk: first sample; rollup: block start) falls in
 * {@code [start, start + lengthMs)} and is dropped whole once it ends before its retention horizon
 * (the reason for partitioning: a drop costs no compaction and never touches today's data).
 *
 * <p>Partition starts are multiples of {@code lengthMs} since the Unix epoch, so they are aligned
 * to {@link TimeSeriesStore#WINDOW_MS} and no chunk window straddles two partitions.
 */
enum PartitionKind {
  /** Raw samples as compressed chunks, one partition per UTC day. */
  CHUNKS("chunks", 86_400_000L),
  /** 5-minute rollups, one partition per 10 days. */
  ROLLUP_5M("rollup5m", 10 * 86_400_000L),
  /** 1-hour rollups, one partition per 100 days. */
  ROLLUP_1H("rollup1h", 100 * 86_400_000L);

  final String prefix;
  final long lengthMs;

  PartitionKind(String prefix, long lengthMs) {
    this.prefix = prefix;
    this.lengthMs = lengthMs;
  }

  /** @return the start of the partition holding {@code timestampMs}, milliseconds */
  long partitionStart(long timestampMs) {
    return Math.floorDiv(timestampMs, lengthMs) * lengthMs;
  }

  /** @return the column family name of the partition starting at {@code startMs} */
  String name(long startMs) {
    return prefix + "_" + LocalDate.ofEpochDay(Math.floorDiv(startMs, 86_400_000L));
  }

  /**
   * @param cfName a column family name
   * @return the partition start in milliseconds if the name is one of this kind's partitions,
   *     else {@code Long.MIN_VALUE}
   */
  long parseStart(String cfName) {
    if (!cfName.startsWith(prefix + "_")) {
      return Long.MIN_VALUE;
    }
    try {
      LocalDate day = LocalDate.parse(cfName.substring(prefix.length() + 1));
      return day.atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
    } catch (DateTimeParseException e) {
      return Long.MIN_VALUE;
    }
  }
}
