package io.inferlens.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Finalization compacts a partition once it has superseded half of its records: chunk fragments
 * merged into one chunk, and 1-hour day blocks replaced by their merge with a newer window.
 */
class FinalizeCompactionTest extends StoreTestBase {

  private static final long DAY_MS = 86_400_000L;
  private static final long WINDOW_MS = 2 * 3_600_000L;
  private static final int SERIES = 1_200;

  @Test
  void aSecondWindowOfTheDayLeavesTheHourlyPartitionCompacted() throws Exception {
    long day = Math.floorDiv(NOW_MS, DAY_MS) * DAY_MS;
    try (TimeSeriesStore store = open()) {
      for (int window = 0; window < 2; window++) {
        List<SeriesWrite> writes = new ArrayList<>();
        for (int s = 0; s < SERIES; s++) {
          double[] pairs = new double[2 * 8];
          for (int i = 0; i < 8; i++) {
            pairs[2 * i] = day + window * WINDOW_MS + i * 15_000L;
            pairs[2 * i + 1] = 100.0 * window + i + s;
          }
          writes.add(write(LabelSet.of("__name__", "m", "s", Integer.toString(s)), pairs));
        }
        store.append(writes);
        store.flushHead();
        assertThat(store.finalizeWindows(true)).isEqualTo(SERIES);
      }
      long afterPass = store.bytesByKind().get("rollup1h");
      store.compact();
      long compacted = store.bytesByKind().get("rollup1h");
      // Without the compaction the memtable held both versions of every day block.
      assertThat((double) afterPass).as("1 h partition after the second pass vs compacted")
          .isCloseTo(compacted, within(compacted * 0.02));

      // The merged day block holds both windows' hours (8 samples each, 15 s apart: one hour).
      List<RollupSeries> hourly = store.selectRollups(
          List.of(Matcher.eq("s", "7")), day, day + DAY_MS - 1, Resolution.ONE_HOUR);
      assertThat(hourly).hasSize(1);
      assertThat(hourly.get(0).startsMs()).containsExactly(day, day + WINDOW_MS);
      assertThat(hourly.get(0).counts()).containsExactly(8, 8);
    }
  }

  /**
   * A flush into a window that is still marked for finalization writes the chunk and the
   * partition's sample count, not a second mark; after finalization the next flush marks the
   * window again, and finalization then merges all its chunks.
   */
  @Test
  void aFlushIntoAMarkedWindowWritesNoSecondMark() throws Exception {
    LabelSet m = LabelSet.of("__name__", "m");
    long ws = TimeSeriesStore.windowStart(NOW_MS - 6 * 3_600_000L);
    try (TimeSeriesStore store = open()) {
      store.append(List.of(write(m, ws + 1_000, 1)));
      store.flushHead(); // chunk, mark, presence key, sample count
      long first = store.chunkPartitionMemtableEntries(ws);
      store.append(List.of(write(m, ws + 2_000, 2)));
      store.flushHead();
      assertThat(store.chunkPartitionMemtableEntries(ws) - first).isEqualTo(2);
      store.finalizeWindows(true); // merged chunk, two deletes, rollup, mark delete
      long finalized = store.chunkPartitionMemtableEntries(ws);
      store.append(List.of(write(m, ws + 3_000, 3)));
      store.flushHead(); // the window is finalized: chunk, mark, sample count
      assertThat(store.chunkPartitionMemtableEntries(ws) - finalized).isEqualTo(3);
      store.finalizeWindows(true);
      Series s = store.select(List.of(Matcher.eq("__name__", "m")), 0, NOW_MS).get(0);
      assertThat(s.timestampsMs()).containsExactly(ws + 1_000, ws + 2_000, ws + 3_000);
      assertThat(store.chunkSamplesStored()).isEqualTo(3);
    }
    try (TimeSeriesStore store = open()) {
      assertThat(store.finalizeWindows(true)).isZero(); // no mark was left behind
    }
  }
}
