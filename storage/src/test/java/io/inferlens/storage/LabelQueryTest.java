package io.inferlens.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** series, labelNames and labelValues count only series with a sample in the time range. */
class LabelQueryTest extends StoreTestBase {

  private static final long T = NOW_MS - 600_000;
  private static final LabelSet EARLY = LabelSet.of("__name__", "m", "zone", "a", "early", "1");
  private static final LabelSet LATE = LabelSet.of("__name__", "m", "zone", "b");
  private static final LabelSet OTHER = LabelSet.of("__name__", "n", "zone", "c");

  @Test
  void queriesHonourTheTimeRange() throws Exception {
    try (TimeSeriesStore store = open()) {
      store.append(List.of(write(EARLY, T, 1), write(LATE, T + 1000, 2),
          write(OTHER, T + 500, 3)));
      record Case(long start, long end, List<LabelSet> series, List<String> names,
          List<String> zones) {}
      List<Case> cases = List.of(
          new Case(T, T + 1000, List.of(EARLY, LATE, OTHER), List.of("__name__", "early", "zone"),
              List.of("a", "b", "c")),
          new Case(T, T, List.of(EARLY), List.of("__name__", "early", "zone"), List.of("a")),
          new Case(T + 1, T + 999, List.of(OTHER), List.of("__name__", "zone"), List.of("c")),
          new Case(T + 1000, T + 5000, List.of(LATE), List.of("__name__", "zone"), List.of("b")),
          new Case(T - 100, T - 1, List.of(), List.of(), List.of()));
      for (Case c : cases) {
        String range = "[" + (c.start - T) + ", " + (c.end - T) + "]";
        assertThat(store.series(List.of(), c.start, c.end)).as(range)
            .containsExactlyElementsOf(c.series);
        assertThat(store.labelNames(List.of(), c.start, c.end)).as(range)
            .containsExactlyElementsOf(c.names);
        assertThat(store.labelValues("zone", List.of(), c.start, c.end)).as(range)
            .containsExactlyElementsOf(c.zones);
      }
    }
  }

  @Test
  void matchersRestrictLabelNamesAndValues() throws Exception {
    try (TimeSeriesStore store = open()) {
      store.append(List.of(write(EARLY, T, 1), write(LATE, T, 2), write(OTHER, T, 3)));
      List<Matcher> onlyM = List.of(Matcher.eq("__name__", "m"));

      assertThat(store.labelValues("zone", onlyM, T, T)).containsExactly("a", "b");
      assertThat(store.labelValues("__name__", List.of(), T, T)).containsExactly("m", "n");
      assertThat(store.labelValues("missing", List.of(), T, T)).isEmpty();
      assertThat(store.labelNames(List.of(Matcher.eq("zone", "c")), T, T))
          .containsExactly("__name__", "zone");
    }
  }

  @Test
  void valuesAreSortedByUtf8BytesNotUtf16() throws Exception {
    // U+FF5E (fullwidth tilde) is one UTF-16 unit above the surrogates; U+1F600 is a surrogate
    // pair. UTF-8 order puts U+FF5E first, Java's String order puts the emoji first.
    String bmp = "\uFF5E";
    String astral = "\uD83D\uDE00";
    try (TimeSeriesStore store = open()) {
      store.append(List.of(write(LabelSet.of("__name__", "m", "v", astral), T, 1),
          write(LabelSet.of("__name__", "m", "v", bmp), T, 2)));

      assertThat(store.labelValues("v", List.of(), T, T)).containsExactly(bmp, astral);
    }
  }
}
