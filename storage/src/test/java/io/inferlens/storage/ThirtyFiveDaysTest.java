package io.inferlens.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * 35 days of a few series at a 15 s scrape interval, ingested day by day with a clock the test
 * moves, retention (30 days) enforced after each day: days older than the horizon are dropped
 * whole, their rollups still answer, and the raw chunks stop growing once retention bites.
 */
class ThirtyFiveDaysTest extends StoreTestBase {

  private static final long DAY_MS = 86_400_000L;
  private static final long STEP_MS = 15_000;
  private static final int PER_DAY = (int) (DAY_MS / STEP_MS);

  private static final LabelSet COUNTER = LabelSet.of("__name__", "vllm:request_success_total",
      "instance", "a");
  private static final LabelSet GAUGE = LabelSet.of("__name__", "vllm:num_requests_waiting",
      "instance", "a");
  private static final LabelSet UTIL = LabelSet.of("__name__", "DCGM_FI_DEV_GPU_UTIL", "gpu", "0");

  /** Counter value at sample i: +3 per scrape, reset to 0 every 10,000 scrapes (a restart). */
  private static double counter(long i) {
    return 3.0 * (i % 10_000);
  }

  private static double gauge(long i) {
    return (i * 7919) % 23;
  }

  private static double util(long i) {
    return 40 + ((i * 104_729) % 600) / 10.0;
  }

  @Test
  void daysBeyondRetentionAreDroppedWholeRollupsAnswerAndChunksStopGrowing() throws Exception {
    long day0 = Math.floorDiv(NOW_MS, DAY_MS) * DAY_MS - 40 * DAY_MS;
    clock.set(day0);
    Map<Integer, Long> chunkBytes = new java.util.HashMap<>();
    Map<Integer, Long> dirBytes = new java.util.HashMap<>();
    try (TimeSeriesStore store = open(StoreOptions.defaults(dir))) {
      for (int day = 0; day < 35; day++) {
        for (int hour = 0; hour < 24; hour++) {
          int n = PER_DAY / 24;
          long[] ts = new long[n];
          long[] c = new long[n];
          long[] g = new long[n];
          long[] u = new long[n];
          for (int k = 0; k < n; k++) {
            long i = (long) day * PER_DAY + (long) hour * n + k;
            ts[k] = day0 + i * STEP_MS;
            c[k] = bits(counter(i));
            g[k] = bits(gauge(i));
            u[k] = bits(util(i));
          }
          clock.set(ts[n - 1] + 1000);
          AppendResult r = store.append(List.of(rawWrite(COUNTER, ts, c), rawWrite(GAUGE, ts, g),
              rawWrite(UTIL, ts, u)));
          assertThat(r.samplesAppended()).isEqualTo(3L * n);
        }
        store.flush();
        store.enforceRetention(clock.millis());
        store.compact();
        chunkBytes.put(day, store.bytesByKind().get("chunks"));
        dirBytes.put(day, store.diskSizeBytes());
      }

      long now = clock.millis();
      long horizon = now - StoreOptions.DEFAULT_RETENTION_MS;
      // Raw: every chunk partition left ends after the horizon; days before it are gone.
      List<String> chunkParts = new ArrayList<>();
      for (String p : store.partitionNames()) {
        if (p.startsWith("chunks_")) {
          chunkParts.add(p);
        }
      }
      assertThat(chunkParts).hasSize(31);
      List<Series> early = store.select(List.of(Matcher.eq("instance", "a")), day0,
          day0 + 3 * DAY_MS);
      assertThat(early).isEmpty();
      Series kept = store.select(List.of(Matcher.eq("__name__", "vllm:num_requests_waiting")),
          horizon, now).get(0);
      assertThat(kept.timestampsMs()[0]).isLessThan(horizon + DAY_MS);
      assertThat(kept.size()).isGreaterThan(30 * PER_DAY - 10);

      // Rollups answer for day 2, whose raw samples are gone.
      long d2 = day0 + 2 * DAY_MS;
      List<RollupSeries> hourly = store.selectRollups(List.of(Matcher.eq("instance", "a")), d2,
          d2 + DAY_MS - 1, Resolution.ONE_HOUR);
      assertThat(hourly).extracting(RollupSeries::labels).containsExactly(GAUGE, COUNTER);
      RollupSeries c = hourly.get(1);
      assertThat(c.size()).isEqualTo(24);
      assertThat(c.counts()).containsOnly(240L);
      long first = 2L * PER_DAY;
      double want = 0;
      for (long i = first + 1; i < first + PER_DAY; i++) {
        double d = counter(i) - counter(i - 1);
        want += d >= 0 ? d : counter(i);
      }
      assertThat(c.counterIncrease(0, 24)).isEqualTo(want);
      RollupSeries g = hourly.get(0);
      double max = 0;
      for (long i = first; i < first + 240; i++) {
        max = Math.max(max, gauge(i));
      }
      assertThat(g.max()[0]).isEqualTo(max);
      List<RollupSeries> fine = store.selectRollups(List.of(Matcher.eq("gpu", "0")), d2,
          d2 + DAY_MS - 1, Resolution.FIVE_MINUTES);
      assertThat(fine.get(0).size()).isEqualTo(288);
      assertThat(fine.get(0).counts()).containsOnly(20L);

      // Raw chunks stop growing once retention drops a day per day; the whole directory grows
      // only by the rollups, far slower than before.
      assertThat(chunkBytes.get(34)).isBetween(chunkBytes.get(31) * 9 / 10,
          chunkBytes.get(31) * 11 / 10);
      long growthBefore = dirBytes.get(29) - dirBytes.get(25);
      long growthAfter = dirBytes.get(34) - dirBytes.get(30);
      assertThat(growthAfter).isLessThan(growthBefore / 2);
    }
  }
}
