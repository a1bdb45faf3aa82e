package io.inferlens.api;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.inferlens.ingest.HaTracker;
import io.inferlens.storage.StorageException;
import io.inferlens.storage.StoreStats;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The service's own metrics, exposed at {@code /metrics} in the Prometheus text format. Names
 * (after Micrometer's Prometheus naming): {@code inferlens_write_requests_total{code}} (429 for
 * requests beyond the ingestion rate limit),
 * {@code inferlens_samples_ingested_total}, {@code inferlens_samples_duplicate_total},
 * {@code inferlens_series_created_total}, {@code inferlens_samples_rejected_total{reason}} (the
 * {@code io.inferlens.ingest.RejectReason} keys, {@code rate_limited} included),
 * {@code inferlens_metadata_received_total}, {@code inferlens_metadata_rejected_total},
 * {@code inferlens_write_decode_seconds}, {@code inferlens_store_size_bytes},
 * {@code inferlens_store_series}, {@code inferlens_store_active_series},
 * {@code inferlens_store_samples} (estimate),
 * {@code inferlens_store_head_samples}, {@code inferlens_read_requests_total{type,code}}, RocksDB's
 * figures summed over all column families ({@code inferlens_rocksdb_live_sst_bytes},
 * {@code inferlens_rocksdb_memtable_bytes}, {@code inferlens_rocksdb_block_cache_usage_bytes},
 * {@code inferlens_rocksdb_estimate_keys}, {@code inferlens_rocksdb_pending_compaction_bytes}),
 * with HA deduplication on ({@code --ha.cluster-label}) {@code
 * inferlens_ha_deduplicated_samples_total{cluster}} (samples of requests dropped as a
 * non-elected replica's, Mimir's {@code cortex_distributor_deduped_samples_total}), {@code
 * inferlens_ha_elected_replica{cluster,replica}} (1 for each cluster's elected replica), {@code
 * inferlens_ha_elected_replica_timestamp_seconds{cluster}} (its last accepted write, Unix
 * seconds, as Mimir's {@code cortex_ha_tracker_elected_replica_timestamp_seconds}) and {@code
 * inferlens_ha_elected_replica_changes{cluster}} (failovers since the cluster was first seen),
 * plus JVM and process metrics.
 *
 * <p>With {@code --multitenancy} each tenant has its own instance, whose every meter carries the
 * label {@code tenant} (as Mimir's per-tenant metrics carry {@code user}), and one more instance
 * without a store reports the JVM and process; without it one instance reports everything
 * without that label.
 *
 * <p>Thread safe.
 */
public final class SelfMetrics implements AutoCloseable {

  private final MeterRegistry registry;
  /** {@code tenant} with --multitenancy, else empty. */
  private final Tags tags;
  private final Map<Integer, Counter> requestsByCode = new ConcurrentHashMap<>();
  private final Map<String, Counter> rejectedByReason = new ConcurrentHashMap<>();
  private final Map<String, Counter> readsByTypeAndCode = new ConcurrentHashMap<>();
  private final Map<String, Counter> haDeduplicatedByCluster = new ConcurrentHashMap<>();
  /** The HA elections, read before each scrape; null when HA deduplication is off. */
  private volatile java.util.function.Supplier<java.util.List<HaTracker.Election>> haElections;
  private MultiGauge haElected;
  private MultiGauge haElectedTimestamp;
  private MultiGauge haElectedChanges;
  private final Counter samplesIngested;
  private final Counter samplesDuplicate;
  private final Counter seriesCreated;
  private final Counter metadataReceived;
  private final Counter metadataRejected;
  private final Timer decodeTime;
  /** The JVM's binders, or null for a tenant's instance. */
  private final JvmGcMetrics gcMetrics;

  /**
   * The metrics of a server with one store: the store's gauges, the write and read counters and
   * the JVM's, without a {@code tenant} label.
   *
   * @param registry where to register
   * @param store the store whose size and series count are reported as gauges
   */
  public SelfMetrics(MeterRegistry registry, StoreStats store) {
    this(registry, null, store, true);
  }

  /**
   * @param registry where to register
   * @param tenant the value of the {@code tenant} label on every meter, or null for none
   * @param store the store whose size and series count are reported as gauges, or null for none
   *     (the process-wide instance of a multi-tenant server)
   * @param process whether this instance also reports the JVM and process (exactly one per
   *     registry)
   */
  SelfMetrics(MeterRegistry registry, String tenant, StoreStats store, boolean process) {
    this.registry = registry;
    this.tags = tenant == null ? Tags.empty() : Tags.of("tenant", tenant);
    samplesIngested = Counter.builder("inferlens.samples.ingested").tags(tags)
        .description("Samples appended durably to the store").register(registry);
    samplesDuplicate = Counter.builder("inferlens.samples.duplicate").tags(tags)
        .description("Samples identical to a stored one (idempotent retries)").register(registry);
    seriesCreated = Counter.builder("inferlens.series.created").tags(tags)
        .description("Label sets stored for the first time").register(registry);
    metadataReceived = Counter.builder("inferlens.metadata.received").tags(tags)
        .description("Metric metadata entries received by remote write, valid or not")
        .register(registry);
    metadataRejected = Counter.builder("inferlens.metadata.rejected").tags(tags)
        .description("Metric metadata entries refused with 4xx (empty name, not UTF-8, too long)")
        .register(registry);
    decodeTime = Timer.builder("inferlens.write.decode").tags(tags)
        .description("Time to decompress, decode and validate a remote-write body")
        .register(registry);
    if (store != null) {
      storeGauges(store);
    }
    if (process) {
      gcMetrics = new JvmGcMetrics();
      new JvmMemoryMetrics().bindTo(registry);
      new JvmThreadMetrics().bindTo(registry);
      gcMetrics.bindTo(registry);
      new ProcessorMetrics().bindTo(registry);
      new UptimeMetrics().bindTo(registry);
    } else {
      gcMetrics = null;
    }
  }

  private void storeGauges(StoreStats store) {
    Gauge.builder("inferlens.store.size", store, SelfMetrics::diskSize).tags(tags)
        .baseUnit("bytes").description("Bytes of the data directory on disk").register(registry);
    Gauge.builder("inferlens.store.series", store, SelfMetrics::seriesCount).tags(tags)
        .description("Series in the index").register(registry);
    Gauge.builder("inferlens.store.active.series", store, StoreStats::activeSeriesCount)
        .tags(tags).description("Series with a sample received in the last hour, which --limits.max-series"
            + " and --limits.max-series-per-metric count").register(registry);
    Gauge.builder("inferlens.store.samples", store, SelfMetrics::sampleCount).tags(tags)
        .description("Raw samples stored (head and chunks), an estimate").register(registry);
    Gauge.builder("inferlens.store.head.samples", store, StoreStats::headSampleCount).tags(tags)
        .description("Samples in the in-memory head, not yet flushed into chunks")
        .register(registry);
    rocksGauge(store, "inferlens.rocksdb.live.sst", "bytes", "rocksdb.total-sst-files-size",
        "Bytes of the live SST files of all column families");
    rocksGauge(store, "inferlens.rocksdb.memtable", "bytes", "rocksdb.cur-size-all-mem-tables",
        "Bytes of the active and unflushed memtables of all column families");
    rocksGauge(store, "inferlens.rocksdb.block.cache.usage", "bytes", "rocksdb.block-cache-usage",
        "Bytes in the RocksDB block cache shared by all column families, memtable charges"
            + " included");
    rocksGauge(store, "inferlens.rocksdb.estimate.keys", null, "rocksdb.estimate-num-keys",
        "RocksDB's estimate of the keys (chunks, rollup blocks, log records, index entries)");
    rocksGauge(store, "inferlens.rocksdb.pending.compaction", "bytes",
        "rocksdb.estimate-pending-compaction-bytes",
        "Bytes compaction still has to rewrite, all column families");
  }

  /** @return the {@code tenant} label of this instance's meters, or empty */
  Tags tags() {
    return tags;
  }

  private void rocksGauge(StoreStats store, String name, String unit, String property,
      String description) {
    Gauge.Builder<StoreStats> b = Gauge.builder(name, store, s -> rocksProperty(s, property))
        .tags(tags).description(description);
    if (unit != null) {
      b.baseUnit(unit);
    }
    b.register(registry);
  }

  private static double rocksProperty(StoreStats store, String property) {
    try {
      return store.rocksProperties().get(property);
    } catch (StorageException e) {
      return Double.NaN;
    }
  }

  // Gauges cannot throw: a failed read shows as NaN, which Prometheus records as a gap.
  private static double diskSize(StoreStats store) {
    try {
      return store.diskSizeBytes();
    } catch (StorageException e) {
      return Double.NaN;
    }
  }

  private static double sampleCount(StoreStats store) {
    try {
      return store.sampleCountEstimate();
    } catch (StorageException e) {
      return Double.NaN;
    }
  }

  private static double seriesCount(StoreStats store) {
    try {
      return store.seriesCount();
    } catch (StorageException e) {
      return Double.NaN;
    }
  }

  /** @param code the HTTP status answered to a write request */
  public void writeRequest(int code) {
    requestsByCode.computeIfAbsent(code, c -> Counter.builder("inferlens.write.requests")
        .description("Remote-write requests by HTTP status code").tags(tags)
        .tag("code", Integer.toString(c)).register(registry)).increment();
  }

  /**
   * @param responseType {@code samples}, {@code streamed_xor_chunks}, or {@code none} when the
   *     request was refused before a type was chosen
   * @param code the HTTP status answered to a remote-read request
   */
  public void readRequest(String responseType, int code) {
    readsByTypeAndCode.computeIfAbsent(responseType + " " + code, k ->
        Counter.builder("inferlens.read.requests")
            .description("Remote-read requests by response type and HTTP status code").tags(tags)
            .tag("type", responseType).tag("code", Integer.toString(code)).register(registry))
        .increment();
  }

  /**
   * @param appended samples stored
   * @param duplicates idempotent duplicates
   * @param newSeries series created
   */
  public void ingested(long appended, long duplicates, long newSeries) {
    samplesIngested.increment(appended);
    samplesDuplicate.increment(duplicates);
    seriesCreated.increment(newSeries);
  }

  /**
   * @param reason a rejection reason key such as {@code too_old}, {@code conflict} or
   *     {@code series_per_metric_limit} ({@code io.inferlens.ingest.RejectReason})
   * @param samples number of samples rejected for it
   */
  public void rejected(String reason, long samples) {
    rejectedByReason.computeIfAbsent(reason, r -> Counter.builder("inferlens.samples.rejected")
        .description("Samples refused with 4xx, by reason").tags(tags)
        .tag("reason", r).register(registry)).increment(samples);
  }

  /**
   * @param received metric metadata entries in one request, valid or not
   * @param rejected of those, the entries refused
   */
  public void metadata(long received, long rejected) {
    metadataReceived.increment(received);
    metadataRejected.increment(rejected);
  }

  /**
   * @param cluster the HA cluster label's value of a dropped request (bounded by
   *     {@code --ha.max-clusters}: only tracked clusters are deduplicated)
   * @param samples the request's samples
   */
  public void haDeduplicated(String cluster, long samples) {
    haDeduplicatedByCluster.computeIfAbsent(cluster, c ->
        Counter.builder("inferlens.ha.deduplicated.samples")
            .description("Samples of remote writes dropped because another replica of their HA"
                + " cluster is elected (answered 202)").tags(tags)
            .tag("cluster", c).register(registry)).increment(samples);
  }

  /**
   * Turns on the HA election gauges, read from {@code elections} at every {@link #refresh()}.
   *
   * @param elections every HA cluster's election now (the write handler's)
   */
  public synchronized void haElections(
      java.util.function.Supplier<java.util.List<HaTracker.Election>> elections) {
    if (haElected == null) {
      haElected = MultiGauge.builder("inferlens.ha.elected.replica")
          .description("1 for the elected replica of each HA cluster").register(registry);
      haElectedTimestamp = MultiGauge.builder("inferlens.ha.elected.replica.timestamp")
          .baseUnit("seconds")
          .description("Last accepted write of each HA cluster's elected replica, Unix seconds")
          .register(registry);
      haElectedChanges = MultiGauge.builder("inferlens.ha.elected.replica.changes")
          .description("Failovers of each HA cluster since it was first seen (a restart forgets"
              + " them)").register(registry);
    }
    haElections = elections;
  }

  /** Brings the gauges that are read on demand (the HA elections) up to date before a scrape. */
  public synchronized void refresh() {
    java.util.function.Supplier<java.util.List<HaTracker.Election>> source = haElections;
    if (source == null) {
      return;
    }
    java.util.List<MultiGauge.Row<?>> elected = new java.util.ArrayList<>();
    java.util.List<MultiGauge.Row<?>> timestamps = new java.util.ArrayList<>();
    java.util.List<MultiGauge.Row<?>> changes = new java.util.ArrayList<>();
    for (HaTracker.Election e : source.get()) {
      elected.add(MultiGauge.Row.of(
          Tags.of("cluster", e.cluster(), "replica", e.replica()).and(tags), 1));
      timestamps.add(MultiGauge.Row.of(Tags.of("cluster", e.cluster()).and(tags),
          e.lastAcceptedMs() / 1000.0));
      changes.add(MultiGauge.Row.of(Tags.of("cluster", e.cluster()).and(tags), e.changes()));
    }
    haElected.register(elected, true);
    haElectedTimestamp.register(timestamps, true);
    haElectedChanges.register(changes, true);
  }

  /** @param nanos time spent decoding one write body, in nanoseconds */
  public void decodeNanos(long nanos) {
    decodeTime.record(nanos, TimeUnit.NANOSECONDS);
  }

  @Override
  public void close() {
    if (gcMetrics != null) {
      gcMetrics.close();
    }
  }
}
