package io.inferlens.api;

import com.linecorp.armeria.server.HttpService;
import io.inferlens.analysis.cardinality.CardinalityRule;
import io.inferlens.analysis.cardinality.CardinalityWatch;
import io.inferlens.analysis.catalog.SignalCatalog;
import io.inferlens.analysis.diagnose.Diagnosis;
import io.inferlens.analysis.diagnose.DiagnosisEngine;
import io.inferlens.analysis.diagnose.FrameCache;
import io.inferlens.analysis.incident.DiagnosisHistory;
import io.inferlens.analysis.incident.IncidentEvaluator;
import io.inferlens.analysis.incident.IncidentJournal;
import io.inferlens.analysis.promql.engine.Engine;
import io.inferlens.ingest.IngestLimits;
import io.inferlens.ingest.RemoteWriteHandler;
import io.inferlens.storage.StorageException;
import io.inferlens.storage.TimeSeriesStore;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.function.Supplier;

/**
 * Everything that serves one tenant's data: its store (series index, head, chunks, rollups,
 * incident journal), the remote-write handler with its limits, HA elections and ingestion rate
 * bucket, the analysis engine, the always-on evaluator with its cardinality watch, and the
 * routes that read them. Without {@code --multitenancy} the server has exactly one, whose
 * {@link #id()} is null and whose store is the data directory itself; with it, one per
 * {@code X-Scope-OrgID} value in {@code <data-dir>/tenants/<id>} ({@link Tenants}).
 *
 * <p>A tenant's routes are built from its own parts only, so a query of one tenant never sees
 * another's series: isolation is by construction, not by a label filter.
 *
 * <p>Thread safe. {@link #close()} closes the store; the caller stops routing to it first.
 */
final class Tenant implements AutoCloseable {

  /**
   * What every tenant of one server shares.
   *
   * @param config the server's configuration (the limits every tenant gets, unless
   *     {@link Multitenancy#limits()} overrides them for it)
   * @param clock the store's and evaluator's clock
   * @param registry where the tenant's metrics go
   * @param catalog the signal catalog
   * @param opener opens a tenant's store (with the RocksDB memory all tenants share)
   * @param frameCache the evaluated-chunk cache all tenants' engines share (each its own
   *     {@link FrameCache#partition}), or null for an engine with a cache of its own
   * @param querySlots PromQL evaluation slots all tenants share ({@code --query.max-concurrency})
   * @param externalUrl the base of alert links, without a trailing slash (known once bound)
   * @param incidents told every tenant's incidents after each evaluation
   * @param process whether this tenant's metrics also report the JVM and process (the one
   *     tenant without --multitenancy)
   */
  record Shared(ServerConfig config, Clock clock, MeterRegistry registry, SignalCatalog catalog,
      InferLensServer.StoreOpener opener, FrameCache frameCache, Semaphore querySlots,
      Supplier<String> externalUrl, IncidentSink incidents, boolean process) {}

  /** Told a tenant's open and recently resolved incidents after each of its evaluations. */
  @FunctionalInterface
  interface IncidentSink {
    /**
     * @param tenant the tenant's id, or null without --multitenancy
     * @param incidents open incidents, then those resolved within 15 minutes
     * @param nowMs the evaluation's time, ms
     */
    void evaluated(String tenant, List<Diagnosis> incidents, long nowMs);
  }

  private final String id;
  private final Path dir;
  private final Shared shared;
  /** The server's configuration with this tenant's limits ({@link TenantLimits}). */
  private final ServerConfig config;
  private final TimeSeriesStore store;
  private final SelfMetrics metrics;
  private final DiagnosisEngine engine;
  private final IncidentJournal journal;
  private final IncidentEvaluator evaluator;
  private final RemoteWriteHandler writeHandler;
  private volatile AlertsApi.LastEvaluation lastEvaluation =
      new AlertsApi.LastEvaluation(Long.MIN_VALUE, 0);
  /** Pattern → service, for a server that dispatches by tenant; filled by {@link #routes()}. */
  private Map<String, HttpService> routeTable;

  private Tenant(String id, Path dir, Shared shared, ServerConfig config, TimeSeriesStore store,
      SelfMetrics metrics, DiagnosisEngine engine, IncidentJournal journal) {
    this.id = id;
    this.dir = dir;
    this.shared = shared;
    this.config = config;
    this.store = store;
    this.metrics = metrics;
    this.engine = engine;
    this.journal = journal;
    this.evaluator = new IncidentEvaluator(engine, store.querier(), journal, shared.clock(),
        (incidents, nowMs) -> shared.incidents().evaluated(id, incidents, nowMs),
        new CardinalityWatch(store, config.targets().groupingLabels(), CardinalityRule.DEFAULTS));
    IngestLimits limits = ingestLimits(config, shared.clock());
    // A tenant's label-set cache starts small and grows with its series; the one store's is
    // full size from the start, as before tenants.
    this.writeHandler = id == null ? new RemoteWriteHandler(store, limits)
        : new RemoteWriteHandler(store, limits, RemoteWriteHandler.TENANT_CACHE_SLOTS);
    if (!config.ha().isOff()) {
      metrics.haElections(writeHandler::haElections);
    }
    MeterRegistry registry = shared.registry();
    Gauge.builder("inferlens.store.writable", store,
        st -> st.writeHealth().failure() == null ? 1 : 0).tags(metrics.tags())
        .description("1 while the store's most recent write succeeded, 0 while writes fail "
            + "(a full disk); /-/ready answers 503 at 0").register(registry);
    Gauge.builder("inferlens.incidents.open", journal, j -> j.openCount()).tags(metrics.tags())
        .description("Incidents open in the journal").register(registry);
    Clock clock = shared.clock();
    Gauge.builder("inferlens.evaluator.lag", evaluator,
        e -> e.evaluatedToMs() == Long.MIN_VALUE ? Double.NaN
            : (clock.millis() - e.evaluatedToMs()) / 1000.0).tags(metrics.tags())
        .baseUnit("seconds")
        .description("How far the evaluator's last evaluated step is behind the clock")
        .register(registry);
    if (shared.frameCache() == null) {
      cacheMeters(engine.cache(), registry);
    }
  }

  /**
   * Opens a tenant: its store in {@code dir} (created if missing, the head log replayed), its
   * journal, engine, evaluator and write handler.
   *
   * @param id the tenant's id ({@link Tenants#check}), or null for the one store of a server
   *     without --multitenancy
   * @param dir the store's directory
   * @param shared what all tenants share
   * @return the open tenant
   * @throws StorageException if the store or its journal cannot be opened; nothing stays open
   */
  static Tenant open(String id, Path dir, Shared shared) throws StorageException {
    ServerConfig config = configOf(id, shared.config());
    TimeSeriesStore store = shared.opener().open(config.storeOptions().withDataDir(dir),
        shared.clock());
    SelfMetrics metrics = null;
    try {
      metrics = new SelfMetrics(shared.registry(), id, store, shared.process());
      DiagnosisEngine engine = new DiagnosisEngine(store.querier(), shared.catalog(),
          config.targets(), config.analysis(), shared.clock(),
          shared.frameCache() == null
              ? DiagnosisEngine.newCache(config.analysis(), DiagnosisEngine.DEFAULT_CACHE_BYTES)
              : shared.frameCache().partition(id == null ? "" : id));
      IncidentJournal journal = IncidentJournal.open(store.journal());
      return new Tenant(id, dir, shared, config, store, metrics, engine, journal);
    } catch (StorageException | RuntimeException e) {
      // Release the store's lock, or a retry cannot open it.
      if (metrics != null) {
        metrics.close();
      }
      store.close();
      throw e;
    }
  }

  /**
   * @param id a tenant's id, or null (the one store) or "" (the empty tenant)
   * @param server the server's configuration
   * @return {@code server} with the tenant's {@code --multitenancy.limits} overrides, if any
   */
  private static ServerConfig configOf(String id, ServerConfig server) {
    return id == null || id.isEmpty() ? server : server.tenancy().limits().apply(id, server);
  }

  /**
   * @param config a tenant's configuration (the server's, with its overrides)
   * @param clock the server's clock
   * @return the remote-write limits of that configuration
   */
  static IngestLimits ingestLimits(ServerConfig config, Clock clock) {
    return new IngestLimits(config.maxRequestBytes(), config.retentionMs(), config.maxFutureMs(),
        clock, config.labelLimits(), config.ingestionRate(), config.ha());
  }

  /** Stores nothing and says every valid sample was new: a new tenant's probe. */
  private static final io.inferlens.storage.SampleAppender NOTHING_STORED =
      new io.inferlens.storage.SampleAppender() {
        @Override
        public io.inferlens.storage.AppendResult append(
            List<io.inferlens.storage.SeriesWrite> writes) {
          long samples = 0;
          for (io.inferlens.storage.SeriesWrite w : writes) {
            samples += w.count();
          }
          return new io.inferlens.storage.AppendResult(samples, 0, writes.size(), List.of(), 0);
        }

        @Override
        public int appendMetadata(List<io.inferlens.storage.MetricMetadata> entries) {
          return entries.size();
        }
      };

  /**
   * What a tenant without a store would answer to a write, storing nothing: {@link Tenants}
   * creates the store only when this stores something.
   *
   * @param id the tenant's id
   * @param server the server's configuration (the tenant's overrides are applied here)
   * @param clock the server's clock
   * @param contentType the request's Content-Type, or null
   * @param contentEncoding the request's Content-Encoding, or null
   * @param body the request's body
   * @return the outcome as the tenant's handler would give it, every valid sample counted new
   * @throws io.inferlens.ingest.IngestException when the request is refused whole
   * @throws StorageException never (nothing is stored)
   */
  static io.inferlens.ingest.WriteOutcome probe(String id, ServerConfig server, Clock clock,
      String contentType, String contentEncoding, byte[] body)
      throws io.inferlens.ingest.IngestException, StorageException {
    ServerConfig config = configOf(id, server);
    // A tiny label-set cache: a probe decodes one request.
    return new RemoteWriteHandler(NOTHING_STORED, ingestLimits(config, clock), 4)
        .handle(contentType, contentEncoding, body);
  }

  /**
   * @return null when this tenant has the flags' limits, else a sentence appended to a refusal
   *     by a limit, saying where the tenant's values come from, e.g. {@code ; tenant team-a's
   *     limits are set by --multitenancy.limits (max-series-per-metric=5)}
   */
  String limitsNote() {
    Map<String, Number> o = id == null ? null : config.tenancy().limits().overrides().get(id);
    if (o == null || o.isEmpty()) {
      return null;
    }
    StringBuilder b = new StringBuilder("; tenant ").append(id)
        .append("'s limits are set by --multitenancy.limits (");
    String sep = "";
    for (Map.Entry<String, Number> e : o.entrySet()) {
      b.append(sep).append(e.getKey()).append('=').append(e.getValue());
      sep = ", ";
    }
    return b.append(')').toString();
  }

  /** Registers the evaluated-chunk cache's meters (once per server: the cache is shared). */
  static void cacheMeters(FrameCache cache, MeterRegistry registry) {
    Gauge.builder("inferlens.analysis.cache.size", cache, c -> c.bytes()).baseUnit("bytes")
        .description("Bytes of evaluated indicator chunks cached by the analysis engine")
        .register(registry);
    FunctionCounter.builder("inferlens.analysis.cache.hits", cache, c -> c.hits())
        .description("Chunk lookups answered from the cache").register(registry);
    FunctionCounter.builder("inferlens.analysis.cache.misses", cache, c -> c.misses())
        .description("Chunk lookups evaluated from samples").register(registry);
  }

  /**
   * Binds every route that reads or changes this tenant's data: remote read, the Prometheus
   * query and read APIs, metadata and build info, TSDB status, the analysis, incident, trend,
   * dashboard, sparkline, rule and alert APIs, and the admin API.
   *
   * @param routes where to bind them: the server itself, or this tenant's route table
   */
  void bind(Routes routes) {
    Clock clock = shared.clock();
    routes.service("/api/v1/read", new RemoteReadService(store.querier(),
        config.maxRequestBytes(), config.maxReadSeries(), config.maxReadBytes(), metrics));
    new PrometheusApi(store.querier(), clock, config.maxExportSamples()).bind(routes);
    new QueryApi(new Engine(store.querier(), config.query(), shared.querySlots()), clock)
        .bind(routes);
    new PrometheusMetaApi(store.querier(), clock).bind(routes);
    new TsdbStatusApi(store).bind(routes);
    DiagnosisHistory history = config.evalIntervalMs() > 0
        ? new DiagnosisHistory(engine, journal, evaluator::discoversFromMs) : null;
    new AnalysisApi(engine, history, clock).bind(routes);
    new IncidentsApi(journal, engine.targetConfig().modelLabel(), clock).bind(routes);
    new TrendsApi(engine, clock).bind(routes);
    new DashboardApi(engine, clock, history, history != null ? journal : null).bind(routes);
    new SparklinesApi(engine, clock).bind(routes);
    new RulesApi(engine, clock, config.alerting().externalUrl()).bind(routes);
    new AlertsApi(journal, shared.externalUrl(), config.analysis().forMs(),
        config.evalIntervalMs(), () -> lastEvaluation, id).bind(routes);
    AdminApi.bind(routes, store, config.web().adminApi());
  }

  /**
   * @return this tenant's routes, pattern → service, built on first use by {@link #bind}
   */
  synchronized Map<String, HttpService> routes() {
    if (routeTable == null) {
      Map<String, HttpService> table = new LinkedHashMap<>();
      bind(table::put);
      routeTable = Collections.unmodifiableMap(table);
    }
    return routeTable;
  }

  /**
   * One evaluation of this tenant's targets by its always-on evaluator.
   *
   * @return what it did
   * @throws StorageException if the store failed
   */
  IncidentEvaluator.Cycle evaluate() throws StorageException {
    long t0 = System.nanoTime();
    long at = shared.clock().millis();
    try {
      return evaluator.evaluate();
    } finally {
      lastEvaluation = new AlertsApi.LastEvaluation(at, (System.nanoTime() - t0) / 1e9);
    }
  }

  /**
   * Enforces retention on the store and forgets journaled incidents older than the 1-hour
   * rollups' retention.
   *
   * @param nowMs the present, ms
   * @throws StorageException if the store failed
   */
  void enforceRetention(long nowMs) throws StorageException {
    store.enforceRetention(nowMs);
    journal.forgetBefore(nowMs - config.rollup1hRetentionMs());
  }

  /** @return the tenant's id, or null for the one store of a server without --multitenancy */
  String id() {
    return id;
  }

  /** @return the server's configuration with this tenant's limits */
  ServerConfig config() {
    return config;
  }

  /** @return the store's directory */
  Path dir() {
    return dir;
  }

  /** @return the store */
  TimeSeriesStore store() {
    return store;
  }

  /** @return the metrics of this tenant's writes, reads and store */
  SelfMetrics metrics() {
    return metrics;
  }

  /** @return the analysis engine */
  DiagnosisEngine engine() {
    return engine;
  }

  /** @return the incident journal */
  IncidentJournal journal() {
    return journal;
  }

  /** @return the remote-write handler (decoder caches, limits, HA tracker, rate bucket) */
  RemoteWriteHandler writeHandler() {
    return writeHandler;
  }

  /** Closes the store after freeing this tenant's evaluated chunks. Idempotent. */
  @Override
  public void close() {
    metrics.close();
    // Its share of the evaluated-chunk cache is freed even if the tenant stays referenced.
    engine.cache().invalidate(Long.MIN_VALUE, Long.MAX_VALUE);
    store.close();
  }
}
