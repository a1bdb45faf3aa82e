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
}
