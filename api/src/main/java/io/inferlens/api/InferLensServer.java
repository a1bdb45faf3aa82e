package io.inferlens.api;

import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.common.MediaType;
import com.linecorp.armeria.server.Server;
import com.linecorp.armeria.server.file.HttpFile;
import com.linecorp.armeria.server.ServerBuilder;
import io.inferlens.analysis.catalog.SignalCatalog;
import io.inferlens.analysis.diagnose.DiagnosisEngine;
import io.inferlens.analysis.incident.IncidentEvaluator;
import io.inferlens.analysis.incident.IncidentJournal;
import io.inferlens.storage.RocksMemory;
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
 * The running service: one Armeria server on one port over one RocksDB store, or with
 * {@code --multitenancy} over one store per tenant ({@link Tenants}, {@link Tenant}). {@code main}
 * and the tests build it the same way through {@link #configureServices(ServerBuilder)}.
 *
 * <p>Lifecycle: {@link #start(ServerConfig, Clock)} opens the store (every tenant's found in
 * the data directory) and binds the port; {@link #close()} stops the server gracefully, then
 * closes the stores. Thread safe.
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
  private final PrometheusMeterRegistry registry;
  /** The JVM's and process's metrics with --multitenancy (each tenant has its own), else null. */
  private final SelfMetrics processMetrics;
  /** RocksDB memory every tenant's store shares with --multitenancy, else null. */
  private final RocksMemory rocksMemory;
  /** The empty tenant's store directory with --multitenancy (deleted on close), else null. */
  private final java.nio.file.Path emptyTenantDir;
  private final Tenants tenants;
  private final ScheduledExecutorService housekeeping;
  private final ScheduledExecutorService evaluation;
  private final java.util.List<Tenant.IncidentSink> incidentSinks =
      new java.util.concurrent.CopyOnWriteArrayList<>();
  private final io.micrometer.core.instrument.Timer evalTimer;
  private final io.micrometer.core.instrument.Counter evalFailures;
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
    this.registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    SignalCatalog catalog = config.catalogFile() == null ? SignalCatalog.load()
        : SignalCatalog.load(config.catalogFile());
    java.util.concurrent.Semaphore querySlots =
        io.inferlens.analysis.promql.engine.Engine.slots(config.query());
    Tenant.IncidentSink sink = (tenant, incidents, nowMs) -> {
      for (Tenant.IncidentSink s : incidentSinks) {
        s.evaluated(tenant, incidents, nowMs);
      }
    };
    boolean multi = config.tenancy().enabled();
    checkLayout(config.dataDir(), multi);
    RocksMemory memory = null;
    SelfMetrics process = null;
    java.nio.file.Path emptyDir = null;
    Tenants opened = null;
    try {
      if (!multi) {
        Tenant.Shared shared = new Tenant.Shared(config, clock, registry, catalog, opener, null,
            querySlots, this::externalUrl, sink, true);
        opened = Tenants.single(Tenant.open(null, config.dataDir(), shared));
      } else {
        memory = RocksMemory.create(config.blockCacheBytes());
        RocksMemory m = memory;
        StoreOpener shareMemory = opener == DEFAULT_OPENER
            ? (o, c) -> TimeSeriesStore.open(o, c, m) : opener;
        process = new SelfMetrics(registry, null, null, true);
        io.inferlens.analysis.diagnose.FrameCache frames =
            DiagnosisEngine.newCache(config.analysis(), DiagnosisEngine.DEFAULT_CACHE_BYTES);
        Tenant.cacheMeters(frames, registry);
        Tenant.Shared shared = new Tenant.Shared(config, clock, registry, catalog, shareMemory,
            frames, querySlots, this::externalUrl, sink, false);
        // Reads of a tenant without a store: an empty store nothing writes to, its metrics
        // nowhere; made anew at every start (a name no tenant can have), removed on close.
        emptyDir = config.dataDir().resolve(EMPTY_TENANT_DIR);
        deleteQuietly(emptyDir);
        Tenant empty = Tenant.open("", emptyDir, new Tenant.Shared(config, clock,
            new io.micrometer.core.instrument.simple.SimpleMeterRegistry(), catalog,
            shareMemory, frames, querySlots, this::externalUrl, (t, i, n) -> { }, false));
        opened = Tenants.multi(config.dataDir(), config.tenancy().maxTenants(),
            (id, dir) -> Tenant.open(id, dir, shared),
            (id, ct, ce, body) -> Tenant.probe(id, config, clock, ct, ce, body), empty, registry);
      }
    } catch (StorageException | RuntimeException e) {
      if (process != null) {
        process.close();
      }
      registry.close();
      if (memory != null) {
        memory.close();
      }
      deleteQuietly(emptyDir);
      throw e;
    }
    this.processMetrics = process;
    this.rocksMemory = memory;
    this.emptyTenantDir = emptyDir;
    this.tenants = opened;
    this.evalTimer = io.micrometer.core.instrument.Timer.builder("inferlens.evaluator.duration")
        .description("Time of one evaluation of every target (of every tenant) by the always-on"
            + " evaluator").register(registry);
    this.evalFailures = io.micrometer.core.instrument.Counter.builder(
        "inferlens.evaluator.failures")
        .description("Evaluations that failed (retried next interval)").register(registry);
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
   * The folder of the data directory (with --multitenancy) holding the empty store that answers
   * reads of tenants without a store; its leading dot makes it no tenant id's folder.
   */
  static final String EMPTY_TENANT_DIR = ".empty-tenant";

  /** The production opener: each store its own RocksDB memory, or the tenants' shared one. */
  private static final StoreOpener DEFAULT_OPENER = TimeSeriesStore::open;

  /**
   * Refuses a data directory laid out for the other mode, so data never seems to vanish: a
   * store written without --multitenancy is not silently ignored by a multi-tenant server, nor
   * tenants' stores by a single-store one.
   *
   * @throws IllegalStateException naming the directory and what to do
   */
  private static void checkLayout(java.nio.file.Path dataDir, boolean multi) {
    java.nio.file.Path tenantsDir = dataDir.resolve(Tenants.TENANTS_DIR);
    boolean hasStore = java.nio.file.Files.exists(dataDir.resolve("CURRENT"));
    if (multi && hasStore) {
      throw new IllegalStateException("--data-dir " + dataDir + " holds a store written without"
          + " --multitenancy; start without it, or keep that store as tenant ID by moving its"
          + " files into " + tenantsDir.resolve("ID"));
    }
    if (!multi && java.nio.file.Files.isDirectory(tenantsDir)) {
      throw new IllegalStateException("--data-dir " + dataDir + " holds tenants' stores ("
          + tenantsDir + "); start with --multitenancy to serve them");
    }
  }

  private static void deleteQuietly(java.nio.file.Path dir) {
    if (dir == null) {
      return;
    }
    try (java.util.stream.Stream<java.nio.file.Path> walk = java.nio.file.Files.walk(dir)) {
      walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (java.io.IOException | java.io.UncheckedIOException e) {
      log.debug("cannot delete {}: {}", dir, e.toString());
    }
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
    return start(config, clock, alertClock, DEFAULT_OPENER);
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
        AlertmanagerNotifier n = s.notifier;
        s.incidentSinks.add(n::evaluated);
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
    log.info("InferLens listening on port {}{}{}, data in {}{}; remote_write URL: {}://HOST:{}"
        + "/api/v1/write, remote_read URL: {}://HOST:{}/api/v1/read", s.port(),
        tls != null ? " over TLS" : "",
        config.web().file().basicAuth() ? " with basic authentication" : "",
        config.dataDir().toAbsolutePath(),
        config.tenancy().enabled() ? " (one store per " + Tenants.HEADER + " tenant, "
            + s.tenants.all().size() + " now)" : "",
        scheme, s.port(), scheme, s.port());
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
    writeService = new WriteService(tenants,
        new InflightWrites(config.maxInflightWriteBytes()));
    sb.service("/api/v1/write", writeService);
    if (!tenants.multi()) {
      tenants.all().get(0).bind(sb::service);
    } else {
      // Every tenant route: the request's tenant's own service for that pattern.
      for (String pattern : tenants.empty().routes().keySet()) {
        sb.service(pattern, new TenantDispatch(tenants, pattern));
      }
    }
    new TenantsApi(tenants).bind(sb);
    PrometheusMetaApi.bindBuildInfo(sb::service);
    sb.service("/metrics", (ctx, req) -> {
      for (Tenant t : tenants.all()) {
        t.metrics().refresh();
      }
      return HttpResponse.of(HttpStatus.OK,
          MediaType.parse("text/plain; version=0.0.4; charset=utf-8"), registry.scrape());
    });
    sb.service("/api/v1/openapi.yaml", HttpFile.of(InferLensServer.class.getClassLoader(),
        "io/inferlens/api/openapi.yaml").asService());
    new HealthApi(tenants).bind(sb);
    WebUi.bind(sb); // the browser UI at /, after the API routes
  }

  /**
   * One evaluation of every target by the always-on evaluator, now (tests; the schedule calls
   * it every {@code --eval-interval}). With --multitenancy every tenant's targets, one tenant
   * after the other; a tenant whose store fails does not stop the others'.
   *
   * @return what it did, summed over tenants ({@code evaluatedToMs} the least of theirs)
   * @throws StorageException if a store failed (after the other tenants were evaluated)
   */
  public IncidentEvaluator.Cycle evaluateNow() throws StorageException {
    long t0 = System.nanoTime();
    long evaluatedTo = Long.MAX_VALUE;
    int targets = 0;
    long steps = 0;
    int bootstrapped = 0;
    int written = 0;
    int open = 0;
    StorageException failed = null;
    try {
      for (Tenant t : tenants.all()) {
        IncidentEvaluator.Cycle c;
        try {
          c = t.evaluate();
        } catch (StorageException e) {
          if (failed == null) {
            failed = e;
          } else {
            failed.addSuppressed(e);
          }
          continue;
        }
        evaluatedTo = Math.min(evaluatedTo, c.evaluatedToMs());
        targets += c.targets();
        steps += c.steps();
        bootstrapped += c.bootstrapped();
        written += c.written();
        open += c.open();
      }
    } finally {
      evalTimer.record(System.nanoTime() - t0, TimeUnit.NANOSECONDS);
    }
    if (failed != null) {
      throw failed;
    }
    return new IncidentEvaluator.Cycle(evaluatedTo == Long.MAX_VALUE ? Long.MIN_VALUE
        : evaluatedTo, targets, steps, bootstrapped, written, open);
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
    incidentSinks.add((tenant, incidents, nowMs) -> listener.evaluated(incidents, nowMs));
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

  /**
   * @return the incident journal of the one store
   * @throws IllegalStateException with --multitenancy ({@link #tenant(String)})
   */
  public IncidentJournal journal() {
    return single().journal();
  }

  private Tenant single() {
    if (tenants.multi()) {
      throw new IllegalStateException("--multitenancy: ask for a tenant's");
    }
    return tenants.all().get(0);
  }

  /**
   * @param id a tenant id
   * @return the tenant's stack, or null when it has no store (with --multitenancy; tests)
   */
  Tenant tenant(String id) {
    return tenants.get(id);
  }

  private void runRetention() {
    for (Tenant t : tenants.all()) {
      try {
        t.enforceRetention(clock.millis());
      } catch (Exception e) {
        // Retention failing must not stop ingestion; it is retried on the next period.
        log.warn("retention run failed{}; will retry in {} ms",
            t.id() == null ? "" : " for tenant " + t.id(), RETENTION_PERIOD_MS, e);
      }
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

  /**
   * @return the analysis engine of the one store
   * @throws IllegalStateException with --multitenancy ({@link #tenant(String)})
   */
  public DiagnosisEngine engine() {
    return single().engine();
  }

  /**
   * @return the one store, for tests and the analysis engine
   * @throws IllegalStateException with --multitenancy ({@link #tenant(String)})
   */
  public TimeSeriesStore store() {
    return single().store();
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
    if (processMetrics != null) {
      processMetrics.close();
    }
    registry.close();
    tenants.close();
    if (rocksMemory != null) {
      rocksMemory.close();
    }
    deleteQuietly(emptyTenantDir);
  }
}
