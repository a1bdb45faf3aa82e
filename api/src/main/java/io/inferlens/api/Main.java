package io.inferlens.api;

import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The command line: {@code java -jar inferlens.jar serve [options]} (also {@code simulate},
 * {@code rules export}). Exit codes of {@code serve}: 0 normal stop,
 * 1 the store could not be opened, 2 bad options.
 */
@Command(name = "inferlens", mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = "Stores Prometheus remote-write samples and explains slow LLM inference.",
    subcommands = {Main.Serve.class, io.inferlens.simulator.SimulateCommand.class,
        RulesCommand.class, CommandLine.HelpCommand.class})
public final class Main implements Runnable {

  /**
   * @param args command line arguments
   */
  public static void main(String[] args) {
    bridgeJulToSlf4j();
    System.exit(new CommandLine(new Main()).execute(args));
  }

  /**
   * Routes java.util.logging (and so {@code System.Logger}, which the storage module and some
   * libraries use) into SLF4J, so every event is one line in slf4j-simple's format instead of
   * JUL's two-line {@code INFO:} records. Idempotent.
   */
  static void bridgeJulToSlf4j() {
    if (!org.slf4j.bridge.SLF4JBridgeHandler.isInstalled()) {
      org.slf4j.bridge.SLF4JBridgeHandler.removeHandlersForRootLogger();
      org.slf4j.bridge.SLF4JBridgeHandler.install();
      java.util.logging.Logger.getLogger("").setLevel(java.util.logging.Level.INFO);
    }
  }

  @Override
  public void run() {
    new CommandLine(this).usage(System.out);
  }

  /**
   * @param name the option's key, for the error message
   * @param value a number, or a duration such as {@code 500ms} or {@code 4s} read as seconds
   * @return the value in the indicator's unit (seconds for latencies)
   * @throws IllegalArgumentException naming the option when the value is neither
   */
  static double parseValue(String name, String value) {
    try {
      return Double.parseDouble(value);
    } catch (NumberFormatException e) {
      try {
        return Units.parseDurationMs(value) / 1000.0;
      } catch (IllegalArgumentException e2) {
        throw new IllegalArgumentException("--slo " + name + "=" + value
            + ": expected a number or a duration such as 500ms or 4s", e2);
      }
    }
  }

  /** {@code serve}: run the service until SIGTERM/SIGINT. */
  @Command(name = "serve", mixinStandardHelpOptions = true,
      versionProvider = VersionProvider.class,
      description = "Run the InferLens server: remote write in, Prometheus-style API out.")
  static final class Serve implements Callable<Integer> {

    @Option(names = "--listen", defaultValue = ":9201", paramLabel = "HOST:PORT",
        description = "Address to listen on; ':9201' means every interface (default: ${DEFAULT-VALUE}).")
    String listen;

    @Option(names = "--data-dir", defaultValue = "inferlens-data", paramLabel = "DIR",
        description = "Directory of the RocksDB store; created if missing (default: ${DEFAULT-VALUE}).")
    Path dataDir;

    @Option(names = "--retention", defaultValue = "30d", paramLabel = "DURATION",
        description = "How long samples are kept, e.g. 30d, 12h, 2w; older samples are refused "
            + "with 400 and deleted hourly (default: ${DEFAULT-VALUE}).")
    String retention;

    @Option(names = "--rollup-5m-retention", defaultValue = "90d", paramLabel = "DURATION",
        description = "How long 5-minute rollups (min, max, sum, count, first, last, increase) "
            + "are kept (default: ${DEFAULT-VALUE}).")
    String rollup5mRetention;

    @Option(names = "--rollup-1h-retention", defaultValue = "730d", paramLabel = "DURATION",
        description = "How long 1-hour rollups are kept (default: ${DEFAULT-VALUE}, 2 years).")
    String rollup1hRetention;

    @Option(names = "--head-max-samples", defaultValue = "2000000", paramLabel = "N",
        description = "Samples kept in the in-memory head before they are flushed into "
            + "compressed chunks; kept compressed, about 5 bytes of heap each on vLLM/DCGM "
            + "series (default: ${DEFAULT-VALUE}).")
    int headMaxSamples;

    @Option(names = "--limits.max-series", defaultValue = "1000000", paramLabel = "N",
        description = "Most active series (a sample received in the last hour) in the store; a "
            + "new series beyond it is refused with 400 naming this limit, while samples of "
            + "active series are always stored. About 1 KB of memory per series, so the default "
            + "is about 1 GB; 0 turns the limit off (default: ${DEFAULT-VALUE}).")
    long maxSeries;

    @Option(names = "--limits.max-series-per-metric", defaultValue = "100000", paramLabel = "N",
        description = "Most active series of one metric name; stops a label carrying a user or "
            + "request id from filling the store, while other metrics keep their new series. "
            + "0 turns the limit off (default: ${DEFAULT-VALUE}).")
    long maxSeriesPerMetric;

    @Option(names = "--max-request-bytes", defaultValue = "32MiB", paramLabel = "SIZE",
        description = "Largest remote-write body accepted, compressed and decoded alike; larger "
            + "gets 413 (default: ${DEFAULT-VALUE}).")
    String maxRequestBytes;

    @Option(names = "--storage.min-free-disk", defaultValue = "64MiB", paramLabel = "SIZE",
        description = "Free space writes never take on the data directory's file system: below "
            + "it writes and /-/ready answer 503 until this plus 32 MiB is free, so a restart "
            + "always finds the few MiB it needs. Nothing is written to disk for it; 0 turns it "
            + "off (default: ${DEFAULT-VALUE}).")
    String minFreeDisk;

    @Option(names = "--max-future", defaultValue = "10m", paramLabel = "DURATION",
        description = "How far ahead of this server's clock a sample may be before it is refused "
            + "(default: ${DEFAULT-VALUE}).")
    String maxFuture;

    @Option(names = "--limits.max-label-names-per-series", defaultValue = "30", paramLabel = "N",
        description = "Most labels one remote-write series may have, __name__ included; a series "
            + "with more is refused with 400 while the rest of its request is stored "
            + "(default: ${DEFAULT-VALUE}, as Mimir).")
    int maxLabelNamesPerSeries;

    @Option(names = "--limits.max-label-name-length", defaultValue = "1024", paramLabel = "BYTES",
        description = "Longest label name in bytes of UTF-8; a series with a longer one is "
            + "refused with 400 (default: ${DEFAULT-VALUE}, as Mimir).")
    int maxLabelNameLength;

    @Option(names = "--limits.max-label-value-length", defaultValue = "2048",
        paramLabel = "BYTES", description = "Longest label value (the metric name excepted) in "
            + "bytes of UTF-8; a series with a longer one is refused with 400 "
            + "(default: ${DEFAULT-VALUE}, as Mimir).")
    int maxLabelValueLength;

    @Option(names = "--limits.max-metric-name-length", defaultValue = "2048",
        paramLabel = "BYTES", description = "Longest metric name in bytes of UTF-8; a series with "
            + "a longer one is refused with 400 (default: ${DEFAULT-VALUE}, the label value "
            + "length, as Mimir checks __name__).")
    int maxMetricNameLength;

    @Option(names = "--allow-utf8-names", defaultValue = "false",
        description = "Accept any non-empty UTF-8 metric and label name (Prometheus 3's UTF-8 "
            + "names); without it metric names must match [a-zA-Z_:][a-zA-Z0-9_:]* and label "
            + "names [a-zA-Z_][a-zA-Z0-9_]*, others refused with 400 (default: ${DEFAULT-VALUE}).")
    boolean allowUtf8Names;

    @Option(names = "--limits.ingestion-rate", defaultValue = "0", paramLabel = "SAMPLES_PER_S",
        description = "Samples per second accepted over all remote writes (a token bucket); a "
            + "request beyond it answers 429 with Retry-After and nothing of it is stored. "
            + "0 turns the limit off (default: ${DEFAULT-VALUE}).")
    double ingestionRate;

    @Option(names = "--limits.ingestion-burst", defaultValue = "0", paramLabel = "SAMPLES",
        description = "Size of the ingestion rate limit's bucket in samples; 0 means one second "
            + "of --limits.ingestion-rate (default: ${DEFAULT-VALUE}).")
    long ingestionBurst;

    @Option(names = "--ha.cluster-label", paramLabel = "LABEL",
        description = "Deduplicate Prometheus HA pairs: the label naming the cluster of "
            + "replicas (e.g. cluster), kept on stored series. Of the replicas of one cluster "
            + "only the elected one's writes are stored, the others' answered 202 and dropped, "
            + "as Mimir's HA tracker. Needs --ha.replica-label (default: off).")
    String haClusterLabel;

    @Option(names = "--ha.replica-label", paramLabel = "LABEL",
        description = "The label naming the replica within its HA cluster (e.g. __replica__), "
            + "removed before storing. Needs --ha.cluster-label (default: off).")
    String haReplicaLabel;

    @Option(names = "--ha.failover-timeout", defaultValue = "30s", paramLabel = "DURATION",
        description = "How long after the elected replica's last accepted write another "
            + "replica of its cluster takes over (default: ${DEFAULT-VALUE}, as Mimir).")
    String haFailoverTimeout;

    @Option(names = "--ha.max-clusters", defaultValue = "100", paramLabel = "N",
        description = "Most HA clusters tracked at once; a write of one more answers 400. "
            + "0 = no limit (default: ${DEFAULT-VALUE}, as Mimir).")
    int haMaxClusters;

    @Option(names = "--multitenancy", defaultValue = "false",
        description = "Keep one store per tenant, named by the X-Scope-OrgID header of every "
            + "write, read, query and UI request (Mimir's and Cortex's convention); each tenant "
            + "has its own series, limits, incidents and alerts (labelled tenant). A request "
            + "without the header answers 401. Stores live in DATA-DIR/tenants/ID "
            + "(default: ${DEFAULT-VALUE}).")
    boolean multitenancy;

    @Option(names = "--multitenancy.max-tenants", paramLabel = "N",
        description = "Most tenants with a store; a write naming one more answers 400 "
            + "(default: 100).")
    Integer maxTenants;

    @Option(names = "--multitenancy.limits", paramLabel = "FILE",
        description = "Per-tenant limits, YAML: overrides: {TENANT: {max-series: N, "
            + "ingestion-rate: N, ...}}, the keys the --limits.* flags without their prefix; a "
            + "tenant not listed gets the flags. Read once at start-up; an invalid file stops "
            + "start-up naming the tenant and key.")
    Path tenantLimitsFile;

    @Option(names = "--wal-sync", defaultValue = "false",
        description = "fsync the write-ahead log before acknowledging each write. Without it an "
            + "acknowledged write survives a crash of InferLens but not of the machine "
            + "(default: ${DEFAULT-VALUE}).")
    boolean walSync;

    @Option(names = "--max-read-series", defaultValue = "10000", paramLabel = "N",
        description = "Most series one remote-read query (POST /api/v1/read) may select; more "
            + "gets 413 naming the numbers (default: ${DEFAULT-VALUE}).")
    long maxReadSeries;

    @Option(names = "--max-read-bytes", defaultValue = "64MiB", paramLabel = "SIZE",
        description = "Largest remote-read response (uncompressed samples, or the sum of "
            + "streamed chunk frames); larger gets 413 before anything is sent "
            + "(default: ${DEFAULT-VALUE}).")
    String maxReadBytes;

    @Option(names = "--max-export-samples", defaultValue = "100000000", paramLabel = "N",
        description = "Most samples one export (/api/v1/export) may write; more answers 422 "
            + "naming the numbers if it is found within the first MiB of the response, else "
            + "the response is cut off and a warning logged (default: ${DEFAULT-VALUE}).")
    long maxExportSamples;

    @Option(names = "--max-inflight-write-bytes", defaultValue = "16MiB", paramLabel = "SIZE",
        description = "Most bytes of remote-write bodies (as sent, compressed) being received, "
            + "queued or decoded at once; a request past it is answered 503 with Retry-After "
            + "before its body is read, and the sender retries it (default: ${DEFAULT-VALUE}).")
    String maxInflightWriteBytes;

    @Option(names = "--block-cache", defaultValue = "32MiB", paramLabel = "SIZE",
        description = "RocksDB block cache shared by all column families: data, index and "
            + "filter blocks of recent reads (default: ${DEFAULT-VALUE}).")
    String blockCache;

    @Option(names = "--catalog", paramLabel = "FILE",
        description = "A JSON signal catalog that adds or overrides metric names per signal "
            + "(same shape as the built-in signals.json).")
    Path catalog;

    @Option(names = "--slo", paramLabel = "SIGNAL=VALUE",
        description = "An explicit threshold that replaces the learned baseline, e.g. "
            + "--slo e2e_p95=4 --slo ttft_p95=0.5 (seconds for latencies). Repeatable.")
    java.util.Map<String, String> slos = new java.util.LinkedHashMap<>();

    @Option(names = "--eval-step", defaultValue = "15s", paramLabel = "DURATION",
        description = "Analysis evaluation step (default: ${DEFAULT-VALUE}).")
    String evalStep;

    @Option(names = "--rate-window", defaultValue = "5m", paramLabel = "DURATION",
        description = "Window of rate() and histogram quantiles (default: ${DEFAULT-VALUE}).")
    String rateWindow;

    @Option(names = "--for", defaultValue = "5m", paramLabel = "DURATION",
        description = "How long a condition must hold before it is a diagnosis "
            + "(default: ${DEFAULT-VALUE}).")
    String forDuration;

    @Option(names = "--baseline-min-history", defaultValue = "1h", paramLabel = "DURATION",
        description = "Normal history needed before a learned baseline replaces the static "
            + "default thresholds (default: ${DEFAULT-VALUE}).")
    String baselineMinHistory;

    @Option(names = "--eval-interval", defaultValue = "15s", paramLabel = "DURATION",
        description = "How often the always-on evaluator diagnoses every target's new samples "
            + "into the incident journal (like Prometheus's evaluation_interval); 0s turns it off "
            + "and diagnoses are evaluated on request (default: ${DEFAULT-VALUE}).")
    String evalInterval;

    @Option(names = "--alertmanager.url", paramLabel = "URL",
        description = "An Alertmanager to send incidents to, e.g. http://127.0.0.1:9093; they are "
            + "POSTed to URL/api/v2/alerts. Repeatable; user:password@ in the URL is sent as "
            + "basic auth. Without it no alert is sent.")
    java.util.List<String> alertmanagerUrls = new java.util.ArrayList<>();

    @Option(names = "--external-label", paramLabel = "NAME=VALUE",
        description = "A label added to every alert sent that lacks it (Prometheus's "
            + "external_labels), e.g. --external-label cluster=prod. Repeatable.")
    java.util.Map<String, String> externalLabels = new java.util.LinkedHashMap<>();

    @Option(names = "--alert.resend-delay", defaultValue = "1m", paramLabel = "DURATION",
        description = "How often a firing alert is re-sent to Alertmanager, at least 1s "
            + "(default: ${DEFAULT-VALUE}, as Prometheus).")
    String resendDelay;

    @Option(names = "--alertmanager.notification-queue-capacity", defaultValue = "10000",
        paramLabel = "N", description = "Alerts queued per Alertmanager while it is slow or "
            + "down; past it the oldest are dropped and counted (default: ${DEFAULT-VALUE}).")
    int notificationQueueCapacity;

    @Option(names = "--web.external-url", paramLabel = "URL",
        description = "The URL users reach InferLens at, the base of alerts' generatorURL and "
            + "runbook_url (default: http://HOSTNAME:PORT of --listen).")
    String externalUrl;

    @Option(names = "--web.config.file", paramLabel = "FILE",
        description = "Prometheus's web configuration file: TLS (tls_server_config) and basic "
            + "authentication (basic_auth_users, bcrypt hashes) for every endpoint. Read once at "
            + "start-up; an invalid file stops start-up naming the field.")
    Path webConfigFile;

    @Option(names = "--web.enable-admin-api", defaultValue = "false",
        description = "Turn on the admin endpoints /api/v1/admin/flush and /compact; without it "
            + "they answer 403 \"admin APIs disabled\" (default: ${DEFAULT-VALUE}).")
    boolean enableAdminApi;

    @Option(names = "--target-labels", defaultValue = "job,instance,model_name", split = ",",
        paramLabel = "LABEL",
        description = "Labels whose values define one diagnosed target (default: ${DEFAULT-VALUE}).")
    java.util.List<String> targetLabels;

    @Option(names = "--gpu-host-labels", defaultValue = "Hostname,hostname", split = ",",
        paramLabel = "LABEL",
        description = "Labels of DCGM series compared with the host part of a target's instance "
            + "to join GPUs to it; else the GPU series' own instance host (default: "
            + "${DEFAULT-VALUE}).")
    java.util.List<String> gpuHostLabels;

    @Option(names = "--consumer-group-target", paramLabel = "GROUP=TARGET",
        description = "Join a Kafka consumer group to a target (its id from /api/v1/targets, or "
            + "its host) instead of by instance host. Repeatable.")
    java.util.Map<String, String> consumerGroups = new java.util.LinkedHashMap<>();

    @Option(names = "--query.max-samples", defaultValue = "50000000", paramLabel = "N",
        description = "Most samples one PromQL query may hold in memory at once; a query over it "
            + "fails alone with 422 (default: ${DEFAULT-VALUE}, as Prometheus).")
    long queryMaxSamples;

    @Option(names = "--query.timeout", defaultValue = "2m", paramLabel = "DURATION",
        description = "Longest a PromQL query may run before it answers 503 timeout "
            + "(default: ${DEFAULT-VALUE}, as Prometheus).")
    String queryTimeout;

    @Option(names = "--query.max-concurrency", defaultValue = "20", paramLabel = "N",
        description = "Most PromQL queries evaluated at once; others wait for a slot within their "
            + "timeout (default: ${DEFAULT-VALUE}, as Prometheus).")
    int queryMaxConcurrency;

    @Option(names = "--query.lookback-delta", defaultValue = "5m", paramLabel = "DURATION",
        description = "How far back an instant selector looks for a sample "
            + "(default: ${DEFAULT-VALUE}, as Prometheus).")
    String queryLookbackDelta;

    /**
     * Builds the server configuration from the parsed options.
     *
     * @return the validated configuration
     * @throws IllegalArgumentException naming the offending option
     */
    ServerConfig config() {
      java.util.Map<io.inferlens.analysis.diagnose.Indicator, Double> sloMap =
          new java.util.EnumMap<>(io.inferlens.analysis.diagnose.Indicator.class);
      for (java.util.Map.Entry<String, String> e : slos.entrySet()) {
        sloMap.put(AnalysisApi.indicator(e.getKey()), parseValue(e.getKey(), e.getValue()));
      }
      io.inferlens.analysis.diagnose.AnalysisConfig analysis =
          io.inferlens.analysis.diagnose.AnalysisConfig.defaults()
              .withTiming(Units.parseDurationMs("--eval-step", evalStep),
                  Units.parseDurationMs("--rate-window", rateWindow),
                  Units.parseDurationMs("--for", forDuration),
                  Units.parseDurationMs("--baseline-min-history", baselineMinHistory),
                  io.inferlens.analysis.diagnose.AnalysisConfig.defaults().baselineBlockMs())
              .withSlos(sloMap);
      ServerConfig config = new ServerConfig(ServerConfig.parseListen(listen), dataDir,
          Units.parseDurationMs("--retention", retention),
          Units.parseBytes("--max-request-bytes", maxRequestBytes),
          Units.parseDurationMs("--max-future", maxFuture), walSync, analysis, catalog,
          io.inferlens.analysis.target.TargetConfig.defaults()
              .withGroupingLabels(targetLabels).withGpuHostLabels(gpuHostLabels)
              .withConsumerGroupTargets(consumerGroups))
          .withReadLimits(maxReadSeries, Units.parseBytes("--max-read-bytes", maxReadBytes))
          .withMaxExportSamples(maxExportSamples)
          .withMaxInflightWriteBytes(
              Units.parseBytes("--max-inflight-write-bytes", maxInflightWriteBytes))
          .withBlockCacheBytes(Units.parseBytes("--block-cache", blockCache))
          .withMinFreeDisk(minFreeDisk())
          .withWriteLimits(new io.inferlens.ingest.LabelLimits(maxLabelNamesPerSeries,
                  maxLabelNameLength, maxLabelValueLength, maxMetricNameLength, allowUtf8Names),
              new io.inferlens.ingest.IngestionRate(ingestionRate, ingestionBurst))
          .withHa(new io.inferlens.ingest.HaConfig(haClusterLabel, haReplicaLabel,
              Units.parseDurationMs("--ha.failover-timeout", haFailoverTimeout), haMaxClusters))
          .withEvalInterval(Units.parseDurationMs("--eval-interval", evalInterval, true))
          .withAlerting(alerting())
          .withWeb(new WebOptions(webConfigFile == null ? WebConfigFile.NONE
              : WebConfigFile.load(webConfigFile), enableAdminApi))
          .withStoreTuning(Units.parseDurationMs("--rollup-5m-retention", rollup5mRetention),
              Units.parseDurationMs("--rollup-1h-retention", rollup1hRetention), headMaxSamples)
          .withSeriesLimits(new io.inferlens.storage.SeriesLimits(maxSeries, maxSeriesPerMetric))
          .withTenancy(new Multitenancy(multitenancy,
              maxTenants == null ? Multitenancy.DEFAULT_MAX_TENANTS : maxTenants))
          .withQuery(new io.inferlens.analysis.promql.engine.EngineOptions(
              Units.parseDurationMs("--query.lookback-delta", queryLookbackDelta),
              queryMaxSamples, Units.parseDurationMs("--query.timeout", queryTimeout),
              queryMaxConcurrency,
              io.inferlens.analysis.promql.engine.EngineOptions.DEFAULTS.defaultSubqueryStepMs()));
      if (maxTenants != null && !multitenancy) {
        throw new IllegalArgumentException("--multitenancy.max-tenants needs --multitenancy");
      }
      if (tenantLimitsFile != null) {
        config = config.withTenancy(new Multitenancy(multitenancy, config.tenancy().maxTenants(),
            TenantLimits.load(tenantLimitsFile, config)));
      }
      config.storeOptions();
      if (catalog != null) {
        io.inferlens.analysis.catalog.SignalCatalog.load(catalog);
      }
      return config;
    }

    /**
     * @return {@code --storage.min-free-disk} in bytes, &ge; 0 (0 turns the floor off)
     * @throws IllegalArgumentException naming the flag if it is not a size
     */
    private long minFreeDisk() {
      if (minFreeDisk.trim().equals("0")) {
        return 0;
      }
      try {
        return Units.parseBytes(minFreeDisk);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("--storage.min-free-disk: " + e.getMessage(), e);
      }
    }

    /** @return the alerting flags, validated (IllegalArgumentException naming the flag) */
    private AlertingConfig alerting() {
      java.util.List<java.net.URI> urls = new java.util.ArrayList<>();
      for (String u : alertmanagerUrls) {
        urls.add(AlertingConfig.parseUrl("--alertmanager.url", u));
      }
      String ext = null;
      if (externalUrl != null) {
        java.net.URI u = AlertingConfig.parseUrl("--web.external-url", externalUrl);
        if (u.getScheme() == null || u.getHost() == null) {
          throw new IllegalArgumentException("--web.external-url \"" + externalUrl
              + "\" must be an absolute URL such as https://inferlens.example.com");
        }
        ext = externalUrl;
      }
      return new AlertingConfig(urls, externalLabels,
          Units.parseDurationMs("--alert.resend-delay", resendDelay), notificationQueueCapacity,
          ext);
    }

    @Override
    public Integer call() throws Exception {
      ServerConfig config;
      try {
        config = config();
      } catch (IllegalArgumentException e) {
        System.err.println("inferlens serve: " + e.getMessage());
        return 2;
      }
      InferLensServer server;
      try {
        server = InferLensServer.start(config, Clock.systemUTC());
      } catch (io.inferlens.storage.StorageException e) {
        System.err.println("inferlens serve: cannot open the store in " + dataDir + ": "
            + e.getMessage());
        return 1;
      } catch (IllegalStateException e) {
        // A data directory laid out for the other --multitenancy setting, or a stray folder.
        System.err.println("inferlens serve: " + e.getMessage());
        return 2;
      } catch (java.util.concurrent.CompletionException e) {
        // Binding failed (address in use, not local): one line, not a stack trace.
        Throwable cause = e.getCause() == null ? e : e.getCause();
        System.err.println("inferlens serve: cannot listen on " + listen + ": "
            + cause.getMessage());
        return 1;
      }
      CountDownLatch stopped = new CountDownLatch(1);
      long startedNs = System.nanoTime();
      Runtime.getRuntime().addShutdownHook(new Thread(() -> {
        server.close();
        org.slf4j.LoggerFactory.getLogger(Main.class).info("InferLens stopped after {} s",
            String.format(java.util.Locale.ROOT, "%.1f",
                (System.nanoTime() - startedNs) / 1e9));
        stopped.countDown();
      }, "inferlens-shutdown"));
      stopped.await();
      return 0;
    }
  }
}
