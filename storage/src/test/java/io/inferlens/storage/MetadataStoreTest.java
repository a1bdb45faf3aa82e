package io.inferlens.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Metric metadata in a real store: read back, kept across a reopen, no write for a re-send of
 * held entries, at most {@link MetricMetadata#MAX_ENTRIES_PER_FAMILY} per family, the bounds.
 */
class MetadataStoreTest extends StoreTestBase {

  private static final MetricMetadata REQUESTS = new MetricMetadata("http_requests_total",
      MetricType.COUNTER, "Requests served.", "");
  private static final MetricMetadata LATENCY = new MetricMetadata("vllm:e2e_request_latency_seconds",
      MetricType.HISTOGRAM, "End-to-end latency.", "seconds");
  private static final MetricMetadata UP = new MetricMetadata("up", MetricType.GAUGE,
      "1 if the target is up.", "");

  private FaultInjectionTest.FailingFacade facade;

  private TimeSeriesStore openFailing() throws StorageException {
    TimeSeriesStore store = TimeSeriesStore.open(StoreOptions.defaults(dir), clock, real -> {
      facade = new FaultInjectionTest.FailingFacade(real);
      return facade;
    });
    return store;
  }

  private static MetricMetadata help(String family, int i) {
    return new MetricMetadata(family, MetricType.GAUGE, "help " + i, "");
  }

  @Test
  void entriesAreReadBackWithPrometheusLimits() throws Exception {
    MetricMetadata requestsOther = new MetricMetadata("http_requests_total", MetricType.COUNTER,
        "Requests served, by another target.", "");
    try (TimeSeriesStore store = open()) {
      assertThat(store.appendMetadata(List.of(UP, REQUESTS, LATENCY, requestsOther)))
          .isEqualTo(3);
      Map<String, List<MetricMetadata>> all = store.metadata(null, -1, 0);
      // Families in UTF-8 name order; a family's entries newest first.
      assertThat(all.keySet()).containsExactly("http_requests_total", "up",
          "vllm:e2e_request_latency_seconds");
      assertThat(all.get("http_requests_total")).containsExactly(requestsOther, REQUESTS);
      assertThat(store.metadata("", -1, -1)).isEqualTo(all);
      assertThat(store.metadata("up", -1, 0)).isEqualTo(Map.of("up", List.of(UP)));
      assertThat(store.metadata("up_total", -1, 0)).isEmpty();
      assertThat(store.metadata(null, 2, 0).keySet())
          .containsExactly("http_requests_total", "up");
      assertThat(store.metadata(null, 0, 0)).isEmpty(); // limit=0 answers nothing, as Prometheus
      assertThat(store.metadata("http_requests_total", 5, 1))
          .isEqualTo(Map.of("http_requests_total", List.of(requestsOther)));
      // The result is the caller's.
      store.metadata(null, -1, 0).get("up").clear();
      assertThat(store.metadata("up", -1, 0).get("up")).containsExactly(UP);
    }
  }

  @Test
  void metadataIsKeptAcrossAReopen() throws Exception {
    Map<String, List<MetricMetadata>> before;
    try (TimeSeriesStore store = open()) {
      store.appendMetadata(List.of(REQUESTS, LATENCY));
      store.appendMetadata(List.of(new MetricMetadata("http_requests_total", MetricType.COUNTER,
          "Requests served (v2).", "")));
      before = store.metadata(null, -1, 0);
    }
    try (TimeSeriesStore store = open()) {
      assertThat(store.metadata(null, -1, 0)).isEqualTo(before);
      assertThat(store.metadata("http_requests_total", -1, 0).get("http_requests_total"))
          .extracting(MetricMetadata::help)
          .containsExactly("Requests served (v2).", "Requests served.");
      // Held entries are still held after the restart: re-sending them changes nothing.
      assertThat(store.appendMetadata(List.of(LATENCY, REQUESTS))).isZero();
    }
  }

  @Test
  void reSendingHeldEntriesInAnyOrderWritesNothing() throws Exception {
    try (TimeSeriesStore store = openFailing()) {
      List<MetricMetadata> all = List.of(REQUESTS, LATENCY, UP);
      assertThat(store.appendMetadata(all)).isEqualTo(3);
      facade.failWrites = true; // any write from here on would throw
      assertThat(store.appendMetadata(List.of(UP, REQUESTS, LATENCY))).isZero();
      assertThat(store.appendMetadata(List.of(LATENCY, UP, LATENCY, REQUESTS))).isZero();
      assertThat(facade.failed).isZero();
      // A new entry must be written; the failed write leaves memory as it was.
      MetricMetadata changed = new MetricMetadata("up", MetricType.GAUGE, "Changed.", "");
      assertThatThrownBy(() -> store.appendMetadata(List.of(REQUESTS, changed)))
          .isInstanceOf(StorageException.class).hasMessageContaining("metadata of 1 metric");
      assertThat(facade.failed).isEqualTo(1);
      assertThat(store.metadata("up", -1, 0).get("up")).containsExactly(UP);
      facade.failWrites = false;
      assertThat(store.appendMetadata(List.of(changed))).isEqualTo(1);
      assertThat(store.metadata("up", -1, 0).get("up")).containsExactly(changed, UP);
    }
  }

  @Test
  void aFamilyKeepsItsTenMostRecentlySentEntries() throws Exception {
    String f = "flapping_help";
    try (TimeSeriesStore store = open()) {
      List<MetricMetadata> first = new ArrayList<>();
      for (int i = 0; i < MetricMetadata.MAX_ENTRIES_PER_FAMILY; i++) {
        first.add(help(f, i));
      }
      store.appendMetadata(first);
      // Entry 0 is sent again, so entry 1 is now the least recently sent.
      assertThat(store.appendMetadata(List.of(help(f, 0)))).isZero();
      assertThat(store.appendMetadata(List.of(help(f, 10)))).isEqualTo(1);
      List<MetricMetadata> held = store.metadata(f, -1, 0).get(f);
      assertThat(held).hasSize(MetricMetadata.MAX_ENTRIES_PER_FAMILY)
          .contains(help(f, 0), help(f, 10)).doesNotContain(help(f, 1));
      assertThat(held.get(0)).isEqualTo(help(f, 10)); // newest first
      // Within one request too: 11 and 12 push out 2 and 3.
      assertThat(store.appendMetadata(List.of(help(f, 11), help(f, 12)))).isEqualTo(1);
      assertThat(store.metadata(f, -1, 0).get(f)).hasSize(MetricMetadata.MAX_ENTRIES_PER_FAMILY)
          .doesNotContain(help(f, 2), help(f, 3)).contains(help(f, 4), help(f, 12));
    }
    try (TimeSeriesStore store = open()) {
      List<MetricMetadata> held = store.metadata(f, -1, 0).get(f);
      assertThat(held).hasSize(MetricMetadata.MAX_ENTRIES_PER_FAMILY);
      assertThat(held.get(0)).isEqualTo(help(f, 12));
      // After a restart the order first stored stands in for when each was last sent.
      store.appendMetadata(List.of(help(f, 13)));
      assertThat(store.metadata(f, -1, 0).get(f)).doesNotContain(help(f, 0))
          .contains(help(f, 4), help(f, 13));
    }
  }

  @Test
  void boundsNameTheFieldAndTheLimit() {
    String atLimit = "h".repeat(MetricMetadata.MAX_HELP_BYTES);
    assertThat(new MetricMetadata("m", MetricType.GAUGE, atLimit, "").help()).hasSize(65536);
    assertThatThrownBy(() -> new MetricMetadata("m", MetricType.GAUGE, atLimit + "h", ""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("help is 65537 bytes, over the limit of 65536 bytes");
    // Counted in UTF-8 bytes: 'é' is two.
    String accents = "é".repeat(MetricMetadata.MAX_UNIT_BYTES / 2 + 1);
    assertThatThrownBy(() -> new MetricMetadata("m", MetricType.GAUGE, "", accents))
        .hasMessage("unit is 4098 bytes, over the limit of 4096 bytes");
    assertThatThrownBy(() -> new MetricMetadata("n".repeat(4097), MetricType.GAUGE, "", ""))
        .hasMessage("metric_family_name is 4097 bytes, over the limit of 4096 bytes");
    assertThatThrownBy(() -> new MetricMetadata("", MetricType.GAUGE, "", ""))
        .hasMessage("metric_family_name is empty");
    assertThatThrownBy(() -> new MetricMetadata("m", MetricType.GAUGE, "bad \uD800 half", ""))
        .hasMessageContaining("help has an unpaired surrogate at index 4");
    assertThat(new MetricMetadata("m", MetricType.GAUGE, "\uD83D\uDE00", "").help())
        .hasSize(2); // a pair is fine (4 bytes)
  }

  @Test
  void typeCodesAndPrometheusNames() {
    assertThat(MetricType.values()).extracting(MetricType::promName).containsExactly("unknown",
        "counter", "gauge", "histogram", "gaugehistogram", "summary", "info", "stateset");
    for (MetricType t : MetricType.values()) {
      assertThat(MetricType.ofCode(t.code())).isSameAs(t);
    }
    assertThatThrownBy(() -> MetricType.ofCode(8)).hasMessage("metric type code 8 is not 0..7");
  }

  @Test
  void aCorruptValueRefusesTheOpenNamingTheFamily() throws Exception {
    open().close();
    try (RocksHandles rocks = RocksHandles.open(StoreOptions.defaults(dir));
        org.rocksdb.WriteBatch b = new org.rocksdb.WriteBatch()) {
      b.put(rocks.meta, Keys.metricMetadataKey("broken"), new byte[] {1, 1, 9, 0, 0});
      rocks.db.write(rocks.writeOptions, b);
    }
    assertThatThrownBy(this::open).isInstanceOf(StorageException.class)
        .hasMessageContaining("metric family \"broken\"")
        .hasMessageContaining("metric type code 9");
  }

  @Test
  void aClosedStoreRefusesReadsAndWrites() throws Exception {
    TimeSeriesStore store = open();
    store.close();
    assertThatThrownBy(() -> store.metadata(null, -1, 0)).isInstanceOf(StorageException.class);
    assertThatThrownBy(() -> store.appendMetadata(List.of(UP)))
        .isInstanceOf(StorageException.class);
  }
}
