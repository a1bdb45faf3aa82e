package io.inferlens.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class PostingsTest {

  @Test
  void setOperationsOnSortedIds() {
    long[] a = {1, 3, 5, 7};
    long[] b = {2, 3, 7, 9};

    assertThat(Postings.intersect(a, b)).containsExactly(3, 7);
    assertThat(Postings.subtract(a, b)).containsExactly(1, 5);
    assertThat(Postings.subtract(a, new long[0])).containsExactly(a);
    assertThat(Postings.intersect(a, new long[0])).isEmpty();
  }

  @Test
  void unionIsSortedAndDistinct() {
    Postings p = new Postings();
    p.add(1, LabelSet.of("__name__", "a", "job", "x"));
    p.add(2, LabelSet.of("__name__", "b", "job", "y"));
    p.add(3, LabelSet.of("__name__", "a", "job", "y"));

    assertThat(Postings.union(p.values("job").values())).containsExactly(1, 2, 3);
    assertThat(p.get("job", "y")).containsExactly(2, 3);
    assertThat(p.get("job", "z")).isEmpty();
    assertThat(p.values("job").keySet()).containsExactly("x", "y");
    assertThat(p.all()).containsExactly(1, 2, 3);
  }

  @Test
  void idListsRoundTripSmallAndHugeGaps() {
    java.util.Random rnd = new java.util.Random(42);
    for (int round = 0; round < 200; round++) {
      Postings.IdList list = new Postings.IdList();
      int n = rnd.nextInt(300);
      long[] want = new long[n];
      long id = rnd.nextInt(3);
      for (int i = 0; i < n; i++) {
        // Dense runs (delta 1), medium gaps and gaps near 2^62.
        long gap = switch (rnd.nextInt(4)) {
          case 0 -> 1;
          case 1 -> 1 + rnd.nextInt(200);
          case 2 -> 1 + rnd.nextInt(1 << 20);
          default -> 1 + (rnd.nextLong() >>> 3) / Math.max(1, n);
        };
        id += gap;
        want[i] = id;
        list.add(id);
      }
      assertThat(list.size()).isEqualTo(n);
      assertThat(list.toArray()).containsExactly(want);
      long[] into = new long[n + 2];
      list.copyInto(into, 1);
      assertThat(java.util.Arrays.copyOfRange(into, 1, n + 1)).containsExactly(want);
      assertThat(into[0]).isZero();
      assertThat(into[n + 1]).isZero();
    }
    Postings.IdList max = new Postings.IdList();
    max.add(0);
    max.add(Long.MAX_VALUE);
    assertThat(max.toArray()).containsExactly(0, Long.MAX_VALUE);
  }

  @Test
  void idsMustIncrease() {
    Postings p = new Postings();
    p.add(5, LabelSet.of("__name__", "a"));

    assertThatThrownBy(() -> p.add(4, LabelSet.of("__name__", "b")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("bug");
  }

  @Test
  void indexRefusesTheSameSeriesTwice() {
    SeriesIndex index = new SeriesIndex();
    LabelSet labels = LabelSet.of("__name__", "a");
    index.add(new SeriesRef(1, labels, SeriesRef.NO_SAMPLES));

    assertThatThrownBy(() -> index.add(new SeriesRef(2, labels, SeriesRef.NO_SAMPLES)))
        .isInstanceOf(IllegalStateException.class);
    assertThat(index.resolve(List.of(Matcher.eq("__name__", "a"))))
        .extracting(r -> r.id).containsExactly(1L);
  }

  @Test
  void indexFindsEverySeriesByEqualLabelSetsAcrossGrowth() {
    SeriesIndex index = new SeriesIndex();
    int n = 10_000;
    for (int i = 0; i < n; i++) {
      index.add(new SeriesRef(i + 1, LabelSet.of("__name__", "m" + (i % 7), "i", "" + i),
          SeriesRef.NO_SAMPLES));
    }
    assertThat(index.size()).isEqualTo(n);
    for (int i = 0; i < n; i++) {
      // A fresh, equal LabelSet: found through the table, not the ref remembered on the key.
      SeriesRef r = index.get(LabelSet.of("__name__", "m" + (i % 7), "i", "" + i));
      assertThat(r).isNotNull();
      assertThat(r.id).isEqualTo(i + 1L);
    }
    assertThat(index.get(LabelSet.of("__name__", "m0", "i", "" + n))).isNull();
    assertThat(index.get(LabelSet.of("__name__", "m0", "j", "0"))).isNull();
  }

  @Test
  void labelSetsBeyondTheSharedNameListsStayCorrect() {
    int lists = LabelSet.MAX_SHARED_NAME_LISTS + 100;
    for (int i = 0; i < lists; i++) {
      LabelSet a = LabelSet.of("__name__", "m", "n" + i, "v");
      LabelSet b = LabelSet.of("__name__", "m", "n" + i, "v");
      assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
      assertThat(a.name(1)).isEqualTo("n" + i);
      assertThat(a).isNotEqualTo(LabelSet.of("__name__", "m", "n" + i, "w"));
    }
  }
}
