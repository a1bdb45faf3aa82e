package io.inferlens.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class WindowMarksTest {

  private static final long H2 = 7_200_000L;

  @Test
  void listsMarkedPairsByWindowThenSeriesUpToTheGivenStart() {
    WindowMarks marks = new WindowMarks();
    marks.add(7, 2 * H2);
    marks.add(3, H2);
    marks.add(5, 2 * H2);
    marks.add(3, 3 * H2);
    marks.add(3, H2); // idempotent

    assertThat(marks.upTo(2 * H2)).containsExactly(
        new TimeSeriesStore.WindowKey(3, H2),
        new TimeSeriesStore.WindowKey(5, 2 * H2),
        new TimeSeriesStore.WindowKey(7, 2 * H2));
    assertThat(marks.upTo(Long.MAX_VALUE)).hasSize(4);
    assertThat(marks.upTo(H2 - 1)).isEmpty();
  }

  @Test
  void removeContainsAndDroppedWindows() {
    WindowMarks marks = new WindowMarks();
    marks.add(1, 0);
    marks.add(2, 0);
    marks.add(2, H2);
    assertThat(marks.contains(2, 0)).isTrue();
    assertThat(marks.remove(2, 0)).isTrue();
    assertThat(marks.remove(2, 0)).isFalse();
    assertThat(marks.contains(2, 0)).isFalse();
    assertThat(marks.contains(1, 0)).isTrue();

    marks.removeWindows(0, H2); // [0, H2): the window at H2 stays
    assertThat(marks.upTo(Long.MAX_VALUE)).isEqualTo(List.of(new TimeSeriesStore.WindowKey(2, H2)));
    assertThat(marks.remove(9, 5 * H2)).isFalse();
  }

  @Test
  void idsOutsideTheDenseRangeAreRefused() {
    WindowMarks marks = new WindowMarks();
    assertThatThrownBy(() -> marks.add(0, 0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("series id 0");
    assertThatThrownBy(() -> marks.add(1L << 40, 0))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
