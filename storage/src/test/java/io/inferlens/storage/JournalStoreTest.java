package io.inferlens.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The journal's records and state survive a reopen, list by start time and follow retention. */
class JournalStoreTest {

  @TempDir Path dir;

  static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  List<String> ids(JournalStore j, long from, long to) throws Exception {
    List<String> out = new ArrayList<>();
    j.scan(from, to, (start, id, v) -> out.add(start + ":" + id + "=" + new String(v,
        StandardCharsets.UTF_8)));
    return out;
  }

  @Test
  void recordsSortByStartSurviveReopenAndGoWithRetention() throws Exception {
    long now = 1_790_000_000_000L;
    try (TimeSeriesStore s = TimeSeriesStore.open(StoreOptions.defaults(dir))) {
      JournalStore j = s.journal();
      j.put(200, "b", b("2"));
      j.put(-5, "neg", b("0"));
      j.put(100, "a", b("1"));
      j.put(200, "a", b("3"));
      j.putState("coverage", b("{}"));
      j.delete(100, "a");
      assertThat(ids(j, Long.MIN_VALUE, Long.MAX_VALUE))
          .containsExactly("-5:neg=0", "200:a=3", "200:b=2");
    }
    try (TimeSeriesStore s = TimeSeriesStore.open(StoreOptions.defaults(dir))) {
      JournalStore j = s.journal();
      assertThat(ids(j, 0, 200)).containsExactly("200:a=3", "200:b=2");
      assertThat(j.state("coverage")).isEqualTo(b("{}"));
      assertThat(j.state("missing")).isNull();
      j.put(now - 1000, "recent", b("4"));
      s.enforceRetention(now + s.options().rollup1hRetentionMs() - 2000);
      assertThat(ids(j, Long.MIN_VALUE, Long.MAX_VALUE)).containsExactly(
          (now - 1000) + ":recent=4");
    }
  }
}
