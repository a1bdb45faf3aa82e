package io.inferlens.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** PromQL matcher semantics, resolved through postings, checked on a small fixed set of series. */
class MatcherSelectionTest extends StoreTestBase {

  private static final long T = NOW_MS - 60_000;
  private static final LabelSet UP_A = LabelSet.of("__name__", "up", "job", "a");
  private static final LabelSet UP_B = LabelSet.of("__name__", "up", "job", "b", "foo", "bar");
  private static final LabelSet UPX = LabelSet.of("__name__", "upx", "job", "a");
  private static final LabelSet DOWN = LabelSet.of("__name__", "down", "foo", "baz");

  private TimeSeriesStore store;

  @BeforeEach
  void fill() throws Exception {
    store = open();
    store.append(List.of(write(UP_A, T, 1), write(UP_B, T, 2), write(UPX, T, 3),
        write(DOWN, T, 4)));
  }

  @AfterEach
  void closeStore() {
    store.close();
  }

  /** Expected series in result order: label by label, name then value (UP_B has foo before job). */
  static Stream<Arguments> cases() {
    return Stream.of(
        Arguments.of(List.of(Matcher.eq("__name__", "up")), List.of(UP_B, UP_A)),
        Arguments.of(List.of(Matcher.eq("__name__", "nope")), List.of()),
        Arguments.of(List.of(Matcher.eq("__name__", "up"), Matcher.eq("job", "b")), List.of(UP_B)),
        Arguments.of(List.of(Matcher.eq("__name__", "up"), Matcher.neq("job", "a")), List.of(UP_B)),
        // Anchored: "up" does not match "upx".
        Arguments.of(List.of(Matcher.re("__name__", "up")), List.of(UP_B, UP_A)),
        Arguments.of(List.of(Matcher.re("__name__", "up.*")), List.of(UP_B, UP_A, UPX)),
        Arguments.of(List.of(Matcher.re("__name__", "up|down")), List.of(DOWN, UP_B, UP_A)),
        Arguments.of(List.of(Matcher.re("job", ".+"), Matcher.nre("__name__", "up")), List.of(UPX)),
        // foo="" selects series without foo.
        Arguments.of(List.of(Matcher.re("__name__", ".+"), Matcher.eq("foo", "")),
            List.of(UP_A, UPX)),
        // foo!="bar" also selects series without foo.
        Arguments.of(List.of(Matcher.re("__name__", "up.*"), Matcher.neq("foo", "bar")),
            List.of(UP_A, UPX)),
        // foo!="" requires foo to be present.
        Arguments.of(List.of(Matcher.neq("foo", "")), List.of(DOWN, UP_B)),
        Arguments.of(List.of(Matcher.re("foo", "ba.")), List.of(DOWN, UP_B)),
        // foo=~"bar|" matches the empty value too: series without foo, and foo=bar.
        Arguments.of(List.of(Matcher.eq("job", "a"), Matcher.re("foo", "bar|")), List.of(UP_A, UPX)),
        Arguments.of(List.of(Matcher.re("__name__", ".+"), Matcher.nre("foo", "ba.")),
            List.of(UP_A, UPX)),
        Arguments.of(List.of(), List.of(DOWN, UP_B, UP_A, UPX)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void selectsPerPromQlSemantics(List<Matcher> matchers, List<LabelSet> expected)
      throws Exception {
    assertThat(store.series(matchers, T, T)).containsExactlyElementsOf(expected);
    assertThat(store.select(matchers, T, T)).extracting(Series::labels)
        .containsExactlyElementsOf(expected);
  }

  @Test
  void selectorWhoseMatchersAllMatchEmptyIsRefused() {
    List<Matcher> allEmpty = List.of(Matcher.eq("foo", ""), Matcher.re("job", ".*"));

    assertThatThrownBy(() -> store.select(allEmpty, T, T))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("at least one matcher must not match the empty string: ")
        .hasMessageContaining("foo=\"\"");
    assertThatThrownBy(() -> store.labelNames(List.of(Matcher.nre("x", "y")), T, T))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
