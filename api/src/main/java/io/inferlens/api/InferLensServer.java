package io.inferlens.api;

import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.common.MediaType;
import com.linecorp.armeria.server.Server;
import com.linecorp.armeria.server.file.HttpFile;
import com.linecorp.armeria.server.ServerBuilder;
import io.inferlens.analysis.catalog.SignalCatalog;
import io.inferlens.analysis.diagnose.DiagnosisEngine;
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
  private final AnalysisDemand demand;
  private Server server;
  /** Set by {@link #configureServices}; closed after the server stopped. */
  private WriteService writeService;

  private InferLensServer(ServerConfig config, Clock clock) throws StorageException {
    this.config = config;
    this.clock = clock;
    this.store = TimeSeriesStore.open(config.storeOptions(), clock);
    this.registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    this.metrics = new SelfMetrics(registry, store);
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
    this.demand = new AnalysisDemand(clock);
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
    InferLensServer s = new InferLensServer(config, clock);
    try {
      ServerBuilder sb = Server.builder().http(config.listen()).workerGroup(eventLoops());
      s.configureServices(sb);
      s.server = sb.build();
      s.server.start().join();
    } catch (RuntimeException e) {
      s.close();
      throw e;
    }
    s.housekeeping.scheduleWithFixedDelay(s::runRetention, 0, RETENTION_PERIOD_MS,
        TimeUnit.MILLISECONDS);
    if (config.analysisWarmup()) {
      s.housekeeping.scheduleWithFixedDelay(s::warmAnalysis, WARM_DELAY_MS, WARM_PERIOD_MS,
          TimeUnit.MILLISECONDS);
    }
    // The one listening line; `serve` prints nothing more.
    log.info("InferLens listening on port {}, data in {}; remote_write URL: http://HOST:{}"
        + "/api/v1/write, remote_read URL: http://HOST:{}/api/v1/read", s.port(),
        config.dataDir().toAbsolutePath(), s.port(), s.port());
    return s;
  }

  /**
   * Binds every route on {@code sb}: remote write, remote read, the Prometheus-style read API
   * (metadata, build info and exemplars included), the analysis and trend APIs, self-metrics,
   * health checks and the web UI at {@code /}. Shared by {@code main} and the tests.
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
    IngestLimits limits = new IngestLimits(config.maxRequestBytes(), config.retentionMs(),
        config.maxFutureMs(), clock);
    writeService = new WriteService(new RemoteWriteHandler(store, limits), metrics);
    sb.service("/api/v1/write", writeService);
    sb.service("/api/v1/read", new RemoteReadService(store.querier(), config.maxRequestBytes(),
        config.maxReadSeries(), config.maxReadBytes(), metrics));
    new PrometheusApi(store.querier(), clock).bind(sb);
    new QueryApi(new io.inferlens.analysis.promql.engine.Engine(store.querier(), config.query()),
        clock).bind(sb);
    new PrometheusMetaApi(store.querier(), clock).bind(sb);
    // Analysis requests say what the warm-up keeps warm; it evaluates nothing nobody asked for.
    // Bound to those routes only, so remote-write requests never pass through it.
    for (String path : AnalysisDemand.ROUTES) {
      sb.decorator(path, (delegate, ctx, req) -> {
        demand.note(ctx.path(), ctx.queryParams());
        return delegate.serve(ctx, req);
      });
    }
    new AnalysisApi(engine, clock).bind(sb);
    new TrendsApi(engine, clock).bind(sb);
    new DashboardApi(engine, clock).bind(sb);
    new RulesApi(engine, clock).bind(sb);
    AdminApi.bind(sb, store);
    sb.service("/metrics", (ctx, req) -> HttpResponse.of(HttpStatus.OK,
        MediaType.parse("text/plain; version=0.0.4; charset=utf-8"), registry.scrape()));
    sb.service("/api/v1/openapi.yaml", HttpFile.of(InferLensServer.class.getClassLoader(),
        "io/inferlens/api/openapi.yaml").asService());
    sb.service("/-/healthy", (ctx, req) ->
        HttpResponse.of(HttpStatus.OK, MediaType.PLAIN_TEXT_UTF_8, "InferLens is Healthy.\n"));
    sb.service("/-/ready", (ctx, req) ->
        HttpResponse.of(HttpStatus.OK, MediaType.PLAIN_TEXT_UTF_8, "InferLens is Ready.\n"));
    WebUi.bind(sb); // the browser UI at /, after the API routes
  }

  /** First analysis warm-up after start: let the server answer its first requests first. */
  private static final long WARM_DELAY_MS = 30_000L;
  /** How often the recently asked targets and ranges are evaluated into the chunk cache. */
  private static final long WARM_PERIOD_MS = 5 * 60_000L;

  /**
   * Keeps recently asked analyses current as samples arrive: evaluates, ending now, each target
   * and range length asked within {@link AnalysisDemand#WINDOW_MS} (every target where the ask
   * named none), each at {@link DiagnosisEngine#fitStepMs} of its range, so the chunk cache holds
   * them and the next such request only evaluates the newest minutes. Does nothing until a client
   * asked. A failure is logged in one line and retried next period; only a store failure carries
   * its stack trace.
   *
   * @return how many evaluations ran (one per ask; a missing target counts none)
   */
  int warmAnalysis() {
    int ran = 0;
    for (AnalysisDemand.Ask ask : demand.recent()) {
      long now = clock.millis();
      long start = now - ask.rangeMs();
      try {
        if (ask.target() == null) {
          engine.diagnoses(start, now, java.util.List.of());
          ran++;
        } else {
          for (io.inferlens.analysis.target.Target t : engine.targets(start, now)) {
            if (t.id().equals(ask.target())) {
              engine.analyze(t, start, now, 0);
              ran++;
            }
          }
        }
      } catch (StorageException e) {
        log.warn("analysis warm-up failed in the store; will retry in {} ms", WARM_PERIOD_MS, e);
      } catch (RuntimeException e) {
        log.warn("analysis warm-up of {} over {} ms failed: {}; will retry in {} ms",
            ask.target() == null ? "every target" : ask.target(), ask.rangeMs(), e.getMessage(),
            WARM_PERIOD_MS);
      }
    }
    return ran;
  }

  private void runRetention() {
    try {
      store.enforceRetention(clock.millis());
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
    if (server != null) {
      server.stop().join();
      server = null;
    }
    if (writeService != null) {
      writeService.close();
    }
    metrics.close();
    registry.close();
    store.close();
  }
}
