package io.inferlens.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class AppendTest extends StoreTestBase {

  private static final LabelSet UP = LabelSet.of("__name__", "up", "job", "node");
  private static final LabelSet M = LabelSet.of("__name__", "m");
  private static final long T = NOW_MS - 60_000;

  @Test
  void appendedSamplesReadBackInTimeOrder() throws Exception {
    try (TimeSeriesStore store = open()) {
      // Out of order within the call, and a later call backfilling before the newest sample.
      AppendResult first = store.append(List.of(write(UP, T + 2000, 3, T, 1, T + 4000, 5)));
      AppendResult backfill = store.append(List.of(write(UP, T + 1000, 2, T + 3000, 4)));

      assertThat(first).isEqualTo(new AppendResult(3, 0, 1, List.of(), 0));
      assertThat(backfill).isEqualTo(new AppendResult(2, 0, 0, List.of(), 0));
      List<Series> got = store.select(List.of(Matcher.eq("__name__", "up")), T, T + 4000);
      assertThat(got).hasSize(1);
      assertThat(got.get(0).labels()).isEqualTo(UP);
      assertThat(got.get(0).timestampsMs()).containsExactly(T, T + 1000, T + 2000, T + 3000, T + 4000);
      assertThat(got.get(0).valueBits())
          .containsExactly(bits(1), bits(2), bits(3), bits(4), bits(5));
      assertThat(store.seriesCount()).isEqualTo(1);
    }
  }

  @Test
  void selectHonoursInclusiveBounds() throws Exception {
    try (TimeSeriesStore store = open()) {
      store.append(List.of(write(M, T, 1, T + 10, 2, T + 20, 3, T + 30, 4)));
      record Case(long start, long end, long[] expected) {}
      List<Case> cases = List.of(
          new Case(T, T + 30, new long[] {T, T + 10, T + 20, T + 30}),
          new Case(T + 10, T + 20, new long[] {T + 10, T + 20}),
          new Case(T + 11, T + 19, new long[] {}),
          new Case(T + 30, Long.MAX_VALUE, new long[] {T + 30}),
          new Case(Long.MIN_VALUE, T, new long[] {T}),
          new Case(T + 20, T + 10, new long[] {}));
      for (Case c : cases) {
        List<Series> got = store.select(List.of(Matcher.eq("__name__", "m")), c.start, c.end);
        long[] ts = got.isEmpty() ? new long[0] : got.get(0).timestampsMs();
        assertThat(ts).as("[%d, %d]", c.start - T, c.end - T).containsExactly(c.expected);
      }
    }
  }

  @Test
  void selectKeepsSamplesOfNeighbouringSeriesApart() throws Exception {
    LabelSet a = LabelSet.of("__name__", "a");
    LabelSet b = LabelSet.of("__name__", "b");
    LabelSet c = LabelSet.of("__name__", "c");
    try (TimeSeriesStore store = open()) {
      // Ids 1, 2, 3; selecting a and c spans b's keys inside the iterator bounds.
      store.append(List.of(write(a, T, 1, T + 1, 2), write(b, T, 3, T + 1, 4),
          write(c, T, 5, T + 1, 6)));

      List<Series> got = store.select(List.of(Matcher.re("__name__", "a|c")), T, T + 1);
      assertThat(got).extracting(Series::labels).containsExactly(a, c);
      assertThat(got.get(0).valueBits()).containsExactly(bits(1), bits(2));
      assertThat(got.get(1).valueBits()).containsExactly(bits(5), bits(6));
      assertThat(store.select(List.of(Matcher.re("__name__", "a|c")), T + 1, T + 1))
          .extracting(s -> s.valueBits()[0]).containsExactly(bits(2), bits(6));
    }
  }

  @Test
  void exactDuplicateIsCountedAndStoredOnce() throws Exception {
    try (TimeSeriesStore store = open()) {
      store.append(List.of(write(M, T, 1)));
      // Retry of the same sample, plus a duplicate inside one call.
      AppendResult retry = store.append(List.of(write(M, T, 1, T + 1, 7, T + 1, 7)));

      assertThat(retry).isEqualTo(new AppendResult(1, 2, 0, List.of(), 0));
      Series s = store.select(List.of(Matcher.eq("__name__", "m")), T, T + 1).get(0);
      assertThat(s.timestampsMs()).containsExactly(T, T + 1);
      assertThat(s.valueBits()).containsExactly(bits(1), bits(7));
    }
  }

  @Test
  void conflictingValueIsRejectedOriginalKeptAndTheRestStored() throws Exception {
    try (TimeSeriesStore store = open()) {
      store.append(List.of(write(M, T, 2)));
      AppendResult r = store.append(List.of(write(M, T, 1, T + 5, 9), write(UP, T, 4)));

      assertThat(r.samplesAppended()).isEqualTo(2);
      assertThat(r.rejectedCount()).isEqualTo(1);
      assertThat(r.rejections()).singleElement().satisfies(rej -> {
        assertThat(rej.series()).isEqualTo(M);
        assertThat(rej.timestampMs()).isEqualTo(T);
        assertThat(rej.reason()).isEqualTo("series {__name__=\"m\"}: sample at " + T
            + " ms has value 1.0 (0x3ff0000000000000) but 2.0 (0x4000000000000000) is already"
            + " stored");
      });
      Series m = store.select(List.of(Matcher.eq("__name__", "m")), T, T + 5).get(0);
      assertThat(m.timestampsMs()).containsExactly(T, T + 5);
      assertThat(m.valueBits()).containsExactly(bits(2), bits(9));
      assertThat(store.select(List.of(Matcher.eq("__name__", "up")), T, T)).hasSize(1);
    }
  }

  @Test
  void conflictInsideOneCallKeepsTheFirstValue() throws Exception {
    try (TimeSeriesStore store = open()) {
      AppendResult r = store.append(List.of(write(M, T, 1), write(M, T, 2)));

      assertThat(r.samplesAppended()).isEqualTo(1);
      assertThat(r.seriesCreated()).isEqualTo(1);
      assertThat(r.rejectedCount()).isEqualTo(1);
      assertThat(r.rejections().get(0).reason())
          .contains("0x4000000000000000", "0x3ff0000000000000", "earlier in the same append");
      assertThat(store.select(List.of(Matcher.eq("__name__", "m")), T, T).get(0).valueBits())
          .containsExactly(bits(1));
    }
  }

  @Test
  void nanPayloadsArePreservedBitExactAndComparedByBits() throws Exception {
    long quietNanWithPayload = 0x7ff8000000000001L;
    long canonicalNan = 0x7ff8000000000000L;
    try (TimeSeriesStore store = open()) {
      long[] ts = {T, T + 1, T + 2, T + 3};
      long[] vb = {STALE_MARKER, quietNanWithPayload, canonicalNan, bits(-0.0)};
      assertThat(store.append(List.of(rawWrite(M, ts, vb))).samplesAppended()).isEqualTo(4);

      Series s = store.select(List.of(Matcher.eq("__name__", "m")), T, T + 3).get(0);
      assertThat(s.valueBits()).containsExactly(vb);
      // Another NaN at the stale marker's timestamp is a different value, not a duplicate:
      // Double.equals would call them equal.
      AppendResult r = store.append(List.of(rawWrite(M, new long[] {T, T + 1, T + 3},
          new long[] {canonicalNan, quietNanWithPayload, bits(0.0)})));
      assertThat(r.samplesDuplicate()).isEqualTo(1);
      assertThat(r.rejectedCount()).isEqualTo(2);
      assertThat(r.rejections().get(0).reason())
          .contains("0x7ff8000000000000", "0x7ff0000000000002");
    }
  }

  @Test
  void samplesBeforeTheRetentionHorizonAreRejectedWithTheHorizon() throws Exception {
    long retentionMs = 3_600_000;
    try (TimeSeriesStore store = open(StoreOptions.defaults(dir).withRetentionMs(retentionMs))) {
      long horizon = NOW_MS - retentionMs;
      AppendResult r = store.append(List.of(write(M, horizon - 1, 1, horizon, 2)));

      assertThat(r.samplesAppended()).isEqualTo(1);
      assertThat(r.rejectedCount()).isEqualTo(1);
      assertThat(r.rejections().get(0).reason())
          .contains("sample at " + (horizon - 1) + " ms is older than the retention horizon "
              + horizon + " ms");
    }
  }

  @Test
  void allRejectedSeriesIsNotCreated() throws Exception {
    try (TimeSeriesStore store = open(StoreOptions.defaults(dir).withRetentionMs(1000))) {
      AppendResult r = store.append(List.of(write(M, NOW_MS - 5000, 1)));

      assertThat(r.seriesCreated()).isZero();
      assertThat(store.seriesCount()).isZero();
    }
  }

  @Test
  void onlyTheFirstTenRejectionsAreListedButAllCounted() throws Exception {
    try (TimeSeriesStore store = open(StoreOptions.defaults(dir).withRetentionMs(1000))) {
      double[] pairs = new double[2 * 25];
      for (int i = 0; i < 25; i++) {
        pairs[2 * i] = NOW_MS - 10_000 - i;
        pairs[2 * i + 1] = i;
      }
      AppendResult r = store.append(List.of(write(M, pairs)));

      assertThat(r.rejections()).hasSize(10);
      assertThat(r.rejectedCount()).isEqualTo(25);
      assertThat(r.samplesAppended()).isZero();
    }
  }

  @Test
  void emptyLabelSetIsRejectedNotStored() throws Exception {
    try (TimeSeriesStore store = open()) {
      AppendResult r = store.append(List.of(write(LabelSet.of(), T, 1)));

      assertThat(r.rejectedCount()).isEqualTo(1);
      assertThat(store.seriesCount()).isZero();
    }
  }

  @Test
  void emptyAppendIsANoOp() throws Exception {
    try (TimeSeriesStore store = open()) {
      assertThat(store.append(List.of())).isEqualTo(new AppendResult(0, 0, 0, List.of(), 0));
      assertThat(store.append(List.of(write(M)))).isEqualTo(new AppendResult(0, 0, 0, List.of(), 0));
      assertThat(store.seriesCount()).isZero();
    }
  }

  @Test
  void negativeTimestampsReadBackBeforePositiveOnes() throws Exception {
    try (TimeSeriesStore store = open(StoreOptions.defaults(dir).withRetentionMs(Long.MAX_VALUE))) {
      store.append(List.of(write(M, 5, 3, -5, 1, 0, 2, -1_000_000, 0)));

      Series s = store.select(List.of(Matcher.eq("__name__", "m")), Long.MIN_VALUE, Long.MAX_VALUE)
          .get(0);
      assertThat(s.timestampsMs()).containsExactly(-1_000_000, -5, 0, 5);
      assertThat(s.valueBits()).containsExactly(bits(0), bits(1), bits(2), bits(3));
    }
  }

  @Test
  void closedStoreRefusesCallsAndCloseIsIdempotent() throws Exception {
    TimeSeriesStore store = open();
    store.close();
    store.close();

    assertThat(store.nativeHandlesClosed()).isTrue();
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> store.append(List.of(write(M, T, 1))))
        .isInstanceOf(StorageException.class)
        .hasMessageContaining("closed");
  }
}
