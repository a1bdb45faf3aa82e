package io.inferlens.api;

import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.common.MediaType;
import com.linecorp.armeria.server.Server;
import com.linecorp.armeria.server.file.HttpFile;
import com.linecorp.armeria.server.ServerBuilder;
import io.inferlens.analysis.catalog.SignalCatalog;
import io.inferlens.analysis.diagnose.DiagnosisEngine;
import io.inferlens.analysis.incident.DiagnosisHistory;
import io.inferlens.analysis.incident.IncidentEvaluator;
import io.inferlens.analysis.incident.IncidentJournal;
import io.inferlens.ingest.IngestLimits;
import io.inferlens.ingest.RemoteWriteHandler;
import io.inferlens.storage.StorageException;
import io.inferlens.storage.TimeSeriesStore;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The running service: one RocksDB store, one Armeria server on one port. {@code main} and the
 * tests build it the same way through {@link #configureServices(ServerBuilder)}.
 *
 * <p>Lifecycle: {@link #start(ServerConfig, Clock)} opens the store and binds the port;
 * {@link #close()} stops the server gracefully, then closes the store. Thread safe.
 */
public final class InferLensServer implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(InferLensServer.class);

  /** How often retention runs; one hour bounds how long expired samples linger. */
  private static final long RETENTION_PERIOD_MS = 3_600_000L;

  /**
   * Event-loop threads of the HTTP server: half the cores, at least one (Armeria's default is
   * twice the cores). The event loops only read bodies and write responses; decoding and appends
   * run on {@link WriteService}'s pool. Fewer event loops wake less often and each one stays
   * warm: on the 2-core bench, {@code s2k-2880} used 1.6-2.4 instead of 2.4-3.4 CPU-s in the
   * event loops (docs/BENCHMARKS.md, ninth pass). The server owns the group and shuts it down.
   *
   * @return the number of event-loop threads, at least 1
   */
  static int eventLoops() {
    return Math.max(1, Runtime.getRuntime().availableProcessors() / 2);
  }

  private final ServerConfig config;
  private final Clock clock;
  private final TimeSeriesStore store;
  private final PrometheusMeterRegistry registry;
  private final SelfMetrics metrics;
  private final ScheduledExecutorService housekeeping;
  private final DiagnosisEngine engine;
  private final IncidentJournal journal;
  private final IncidentEvaluator evaluator;
  private final ScheduledExecutorService evaluation;
  private final java.util.List<IncidentEvaluator.Listener> incidentListeners =
      new java.util.concurrent.CopyOnWriteArrayList<>();
  private final io.micrometer.core.instrument.Timer evalTimer;
  private final io.micrometer.core.instrument.Counter evalFailures;
  private volatile AlertsApi.LastEvaluation lastEvaluation =
      new AlertsApi.LastEvaluation(Long.MIN_VALUE, 0);
  private AlertmanagerNotifier notifier;
  private Server server;
  /** Set by {@link #configureServices}; closed after the server stopped. */
  private WriteService writeService;

  /** Opens the store; tests pass one that injects write failures. */
  @FunctionalInterface
  interface StoreOpener {
    /**
     * @param options where and how
     * @param clock the store's clock
     * @return the open store
     * @throws StorageException if it cannot be opened
     */
    TimeSeriesStore open(io.inferlens.storage.StoreOptions options, Clock clock)
        throws StorageException;
  }

  private InferLensServer(ServerConfig config, Clock clock, StoreOpener opener)
      throws StorageException {
    this.config = config;
    this.clock = clock;
    this.store = opener.open(config.storeOptions(), clock);
    this.registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    this.metrics = new SelfMetrics(registry, store);
    io.micrometer.core.instrument.Gauge.builder("inferlens.store.writable", store,
        st -> st.writeHealth().failure() == null ? 1 : 0)
        .description("1 while the store's most recent write succeeded, 0 while writes fail "
            + "(a full disk); /-/ready answers 503 at 0").register(registry);
    SignalCatalog catalog = config.catalogFile() == null ? SignalCatalog.load()
        : SignalCatalog.load(config.catalogFile());
    this.engine = new DiagnosisEngine(store.querier(), catalog, config.targets(), config.analysis(),
        clock);
    io.micrometer.core.instrument.Gauge.builder("inferlens.analysis.cache.size", engine.cache(),
        c -> c.bytes()).baseUnit("bytes")
        .description("Bytes of evaluated indicator chunks cached by the analysis engine")
        .register(registry);
    io.micrometer.core.instrument.FunctionCounter.builder("inferlens.analysis.cache.hits",
        engine.cache(), c -> c.hits()).description("Chunk lookups answered from the cache")
        .register(registry);
    io.micrometer.core.instrument.FunctionCounter.builder("inferlens.analysis.cache.misses",
        engine.cache(), c -> c.misses()).description("Chunk lookups evaluated from samples")
        .register(registry);
    IncidentJournal opened;
    try {
      opened = IncidentJournal.open(store.journal());
    } catch (StorageException | RuntimeException e) {
      // Nothing else holds the store yet: release its lock, or a retry cannot open it.
      metrics.close();
      registry.close();
      store.close();
      throw e;
    }
    this.journal = opened;
    this.evaluator = new IncidentEvaluator(engine, store.querier(), journal, clock,
        (incidents, nowMs) -> {
          for (IncidentEvaluator.Listener l : incidentListeners) {
            l.evaluated(incidents, nowMs);
          }
        }, new io.inferlens.analysis.cardinality.CardinalityWatch(store,
            config.targets().groupingLabels(),
            io.inferlens.analysis.cardinality.CardinalityRule.DEFAULTS));
    this.evalTimer = io.micrometer.core.instrument.Timer.builder("inferlens.evaluator.duration")
        .description("Time of one evaluation of every target by the always-on evaluator")
        .register(registry);
    this.evalFailures = io.micrometer.core.instrument.Counter.builder(
        "inferlens.evaluator.failures").description("Evaluations that failed (retried next interval)")
        .register(registry);
    io.micrometer.core.instrument.Gauge.builder("inferlens.incidents.open", journal,
        j -> j.openCount()).description("Incidents open in the journal")
        .register(registry);
    io.micrometer.core.instrument.Gauge.builder("inferlens.evaluator.lag", evaluator,
        e -> e.evaluatedToMs() == Long.MIN_VALUE ? Double.NaN
            : (clock.millis() - e.evaluatedToMs()) / 1000.0).baseUnit("seconds")
        .description("How far the evaluator's last evaluated step is behind the clock")
        .register(registry);
    this.evaluation = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "inferlens-evaluator");
      t.setDaemon(true);
      return t;
    });
    this.housekeeping = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "inferlens-housekeeping");
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * Opens the store in {@code config.dataDir()} and starts serving.
   *
   * @param config the configuration
   * @param clock the clock for timestamp validation and default query ranges
   * @return the started server; {@link #port()} tells the bound port
   * @throws StorageException if the store cannot be opened (e.g. locked by another process)
   */
  public static InferLensServer start(ServerConfig config, Clock clock) throws StorageException {
    return start(config, clock, clock);
  }

  /**
   * As {@link #start(ServerConfig, Clock)}, with another clock for the Alertmanager notifier
   * (tests whose store clock lies in the past, while Alertmanager judges {@code endsAt} by its
   * own wall clock).
   *
   * @param config the configuration
   * @param clock the store's and the evaluator's clock
   * @param alertClock the notifier's clock: {@code endsAt} and the resend delay
   * @return the started server
   * @throws StorageException if the store cannot be opened
   */
  static InferLensServer start(ServerConfig config, Clock clock, Clock alertClock)
      throws StorageException {
    return start(config, clock, alertClock, TimeSeriesStore::open);
  }

  /**
   * As {@link #start(ServerConfig, Clock, Clock)}, the store opened by {@code opener} (tests
   * that make its writes fail).
   *
   * @param config the configuration
   * @param clock the store's and the evaluator's clock
   * @param alertClock the notifier's clock
   * @param opener opens the store
   * @return the started server
   * @throws StorageException if the store cannot be opened
   */
  static InferLensServer start(ServerConfig config, Clock clock, Clock alertClock,
      StoreOpener opener) throws StorageException {
    InferLensServer s = new InferLensServer(config, clock, opener);
    TlsSettings tls = config.web().file().tls();
    try {
      ServerBuilder sb = Server.builder().workerGroup(eventLoops());
      if (tls == null) {
        sb.http(config.listen());
      } else {
        sb.https(config.listen());
        tls.apply(sb);
      }
      s.configureServices(sb);
      s.server = sb.build();
      s.server.start().join();
      if (!config.alerting().alertmanagers().isEmpty()) {
        s.notifier = new AlertmanagerNotifier(config.alerting().withExternalUrl(
            s.externalUrl()), config.evalIntervalMs(), alertClock, s.registry);
        s.addIncidentListener(s.notifier);
      }
    } catch (RuntimeException e) {
      s.close();
      throw e;
    }
    s.housekeeping.scheduleWithFixedDelay(s::runRetention, 0, RETENTION_PERIOD_MS,
        TimeUnit.MILLISECONDS);
    if (config.evalIntervalMs() > 0) {
      s.evaluation.scheduleWithFixedDelay(s::evaluateQuietly, 0, config.evalIntervalMs(),
          TimeUnit.MILLISECONDS);
    }
    // The one listening line; `serve` prints nothing more.
    String scheme = s.scheme();
    log.info("InferLens listening on port {}{}{}, data in {}; remote_write URL: {}://HOST:{}"
        + "/api/v1/write, remote_read URL: {}://HOST:{}/api/v1/read", s.port(),
        tls != null ? " over TLS" : "",
        config.web().file().basicAuth() ? " with basic authentication" : "",
        config.dataDir().toAbsolutePath(), scheme, s.port(), scheme, s.port());
    return s;
  }

  /**
   * Binds every route on {@code sb}: remote write, remote read, the Prometheus-style read API
   * (metadata, build info and exemplars included), the analysis and trend APIs, self-metrics,
   * health checks and the web UI at {@code /}, all behind basic authentication when the web
   * configuration file sets users. Shared by {@code main} and the tests.
   *
   * @param sb the builder to configure
   */
  public void configureServices(ServerBuilder sb) {
    // Armeria answers 413 for bodies over the cap before we see them; the decoded size is checked
    // against the same cap from snappy's header.
    sb.maxRequestLength(config.maxRequestBytes());
    sb.errorHandler(new BodyLimitErrorHandler());
    sb.requestTimeout(Duration.ofSeconds(60));
    sb.gracefulShutdownTimeout(Duration.ofSeconds(1), Duration.ofSeconds(10));
    WebConfigFile web = config.web().file();
    if (web.basicAuth()) {
      // Every route: write, read, queries, REST, UI, /metrics and health, as Prometheus.
      sb.decorator(new BasicAuth(web.users()));
    }
    if (!web.headers().isEmpty()) {
      // Added after authentication, so its 401s carry the headers too.
      sb.decorator((delegate, ctx, req) -> {
        for (java.util.Map.Entry<String, String> h : web.headers().entrySet()) {
          ctx.setAdditionalResponseHeader(h.getKey(), h.getValue());
        }
        return delegate.serve(ctx, req);
      });
    }
    IngestLimits limits = new IngestLimits(config.maxRequestBytes(), config.retentionMs(),
        config.maxFutureMs(), clock, config.labelLimits(), config.ingestionRate(), config.ha());
    RemoteWriteHandler writeHandler = new RemoteWriteHandler(store, limits);
    if (!config.ha().isOff()) {
      metrics.haElections(writeHandler::haElections);
    }
    writeService = new WriteService(writeHandler, metrics);
    sb.service("/api/v1/write", writeService);
    sb.service("/api/v1/read", new RemoteReadService(store.querier(), config.maxRequestBytes(),
        config.maxReadSeries(), config.maxReadBytes(), metrics));
    new PrometheusApi(store.querier(), clock).bind(sb);
    new QueryApi(new io.inferlens.analysis.promql.engine.Engine(store.querier(), config.query()),
        clock).bind(sb);
    new PrometheusMetaApi(store.querier(), clock).bind(sb);
    new TsdbStatusApi(store).bind(sb);
    new AnalysisApi(engine, config.evalIntervalMs() > 0
        ? new DiagnosisHistory(engine, journal, evaluator::staleFromMs) : null, clock).bind(sb);
    new IncidentsApi(journal, engine.targetConfig().modelLabel(), clock).bind(sb);
    new TrendsApi(engine, clock).bind(sb);
    new DashboardApi(engine, clock).bind(sb);
    new SparklinesApi(engine, clock).bind(sb);
    new RulesApi(engine, clock, config.alerting().externalUrl()).bind(sb);
    new AlertsApi(journal, this::externalUrl, config.analysis().forMs(), config.evalIntervalMs(),
        () -> lastEvaluation).bind(sb);
    AdminApi.bind(sb, store, config.web().adminApi());
    sb.service("/metrics", (ctx, req) -> {
      metrics.refresh();
      return HttpResponse.of(HttpStatus.OK,
          MediaType.parse("text/plain; version=0.0.4; charset=utf-8"), registry.scrape());
    });
    sb.service("/api/v1/openapi.yaml", HttpFile.of(InferLensServer.class.getClassLoader(),
        "io/inferlens/api/openapi.yaml").asService());
    new HealthApi(store).bind(sb);
    WebUi.bind(sb); // the browser UI at /, after the API routes
  }

  /**
   * One evaluation of every target by the always-on evaluator, now (tests; the schedule calls
   * it every {@code --eval-interval}).
   *
   * @return what it did
   * @throws StorageException if the store failed
   */
  public IncidentEvaluator.Cycle evaluateNow() throws StorageException {
    long t0 = System.nanoTime();
    long at = clock.millis();
    try {
      return evaluator.evaluate();
    } finally {
      long ns = System.nanoTime() - t0;
      evalTimer.record(ns, TimeUnit.NANOSECONDS);
      lastEvaluation = new AlertsApi.LastEvaluation(at, ns / 1e9);
    }
  }

  /** The scheduled evaluation: a failure is logged in one line and retried next interval. */
  private void evaluateQuietly() {
    try {
      evaluateNow();
    } catch (StorageException e) {
      evalFailures.increment();
      log.warn("evaluation failed in the store; retrying in {} ms", config.evalIntervalMs(), e);
    } catch (RuntimeException e) {
      evalFailures.increment();
      log.warn("evaluation failed: {}; retrying in {} ms", e, config.evalIntervalMs());
    }
  }

  /**
   * @param listener told the open and recently resolved incidents after every evaluation (the
   *     Alertmanager notifier)
   */
  public void addIncidentListener(IncidentEvaluator.Listener listener) {
    incidentListeners.add(listener);
  }

  /**
   * @return where users reach this server, without a trailing slash: {@code --web.external-url},
   *     else {@code http://HOST:PORT} ({@code https} with TLS) of the bound address, HOST the
   *     machine's name when bound to every interface (Prometheus's default)
   */
  public String externalUrl() {
    String configured = config.alerting().externalUrl();
    if (configured != null) {
      return configured;
    }
    InetSocketAddress a = address();
    String host;
    if (a.getAddress() != null && !a.getAddress().isAnyLocalAddress()) {
      host = a.getAddress().getHostAddress();
      if (host.indexOf(':') >= 0) {
        host = "[" + host + "]";
      }
    } else {
      try {
        host = java.net.InetAddress.getLocalHost().getHostName();
      } catch (java.io.IOException e) {
        host = "localhost";
      }
    }
    return scheme() + "://" + host + ":" + a.getPort();
  }

  /** @return {@code https} when the web configuration file sets TLS, else {@code http} */
  public String scheme() {
    return config.web().file().tls() == null ? "http" : "https";
  }

  /** @return the incident journal */
  public IncidentJournal journal() {
    return journal;
  }

  private void runRetention() {
    try {
      store.enforceRetention(clock.millis());
      journal.forgetBefore(clock.millis() - config.rollup1hRetentionMs());
    } catch (Exception e) {
      // Retention failing must not stop ingestion; it is retried on the next period.
      log.warn("retention run failed; will retry in {} ms", RETENTION_PERIOD_MS, e);
    }
  }

  /**
   * @return the pattern of every route the server registered, in Armeria's notation: exact paths
   *     ({@code /api/v1/targets}), path parameters as {@code :name}, prefixes ending in {@code /*}
   */
  public java.util.List<String> routes() {
    java.util.List<String> out = new java.util.ArrayList<>();
    for (com.linecorp.armeria.server.ServiceConfig c : server.serviceConfigs()) {
      out.add(c.route().patternString());
    }
    return out;
  }

  /** @return the bound HTTP port */
  public int port() {
    return server.activeLocalPort();
  }

  /** @return the event-loop threads the HTTP server runs on ({@link #eventLoops()} of them) */
  int eventLoopCount() {
    int n = 0;
    for (io.netty.util.concurrent.EventExecutor ignored : server.config().workerGroup()) {
      n++;
    }
    return n;
  }

  /** @return the local address the server listens on */
  public InetSocketAddress address() {
    return server.activePort().localAddress();
  }

  /** @return the analysis engine */
  public DiagnosisEngine engine() {
    return engine;
  }

  /** @return the store, for tests and the analysis engine */
  public TimeSeriesStore store() {
    return store;
  }

  /** Stops accepting requests, waits for in-flight ones, closes the store. Idempotent. */
  @Override
  public synchronized void close() {
    housekeeping.shutdownNow();
    evaluation.shutdownNow();
    try {
      evaluation.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (server != null) {
      server.stop().join();
      server = null;
    }
    if (writeService != null) {
      writeService.close();
    }
    if (notifier != null) {
      notifier.close();
    }
    metrics.close();
    registry.close();
    // The evaluated-chunk cache (up to 256 MiB) is freed even if the closed server stays referenced.
    engine.cache().invalidate(Long.MIN_VALUE, Long.MAX_VALUE);
    store.close();
  }
}
