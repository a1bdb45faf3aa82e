package io.inferlens.api;

import java.net.InetSocketAddress;
import io.inferlens.analysis.diagnose.AnalysisConfig;
import io.inferlens.analysis.target.TargetConfig;
import io.inferlens.ingest.HaConfig;
import io.inferlens.ingest.IngestionRate;
import io.inferlens.ingest.LabelLimits;
import io.inferlens.storage.SeriesLimits;
import io.inferlens.storage.StoreOptions;
import io.inferlens.analysis.promql.engine.EngineOptions;
import java.nio.file.Path;

/**
 * Everything {@code serve} needs, parsed and validated.
 *
 * @param listen address to bind; port 0 picks a free port (tests)
 * @param dataDir the data directory holding the RocksDB store
 * @param retentionMs how long samples are kept, in milliseconds (default 30 days)
 * @param maxRequestBytes cap on a remote-write body, compressed and decoded, in bytes
 *     (default 32 MiB, docs/DESIGN.md section 2)
 * @param maxFutureMs how far ahead of the server clock a sample timestamp may be, in milliseconds
 *     (default 10 minutes)
 * @param walSync fsync RocksDB's WAL before acknowledging a write; without it an acknowledged
 *     write survives a crash of the process but not of the machine
 * @param analysis thresholds and time scales of the analysis engine
 * @param catalogFile a user signal catalog that extends the built-in one, or null
 * @param targets how series group into targets and how GPU and Kafka series join them
 * @param maxReadSeries most series one remote-read query may select; more answers 413 before any
 *     sample is sent (default {@value #DEFAULT_MAX_READ_SERIES})
 * @param maxReadBytes largest remote-read response in bytes: the uncompressed ReadResponse for
 *     SAMPLES, the sum of frames for STREAMED_XOR_CHUNKS; more answers 413 (default 64 MiB)
 * @param maxExportSamples most samples one {@code /api/v1/export} may write, &ge; 1; more answers
 *     422 within the first MiB of the body, else cuts the body off (default
 *     {@value #DEFAULT_MAX_EXPORT_SAMPLES})
 * @param maxInflightWriteBytes most bytes of remote-write bodies (as sent, compressed) admitted
 *     and not yet answered, &ge; 1; a request past it is answered 503 with {@code Retry-After}
 *     before its body is read, unless nothing else is in flight (default 16 MiB,
 *     {@link InflightWrites})
 * @param blockCacheBytes RocksDB block cache shared by all column families, in bytes, &ge; 0
 *     (default {@link StoreOptions#DEFAULT_BLOCK_CACHE_BYTES}, 32 MiB)
 * @param evalIntervalMs how often the always-on evaluator evaluates every target's new steps
 *     into the incident journal, milliseconds (default 15 s, {@code --eval-interval}); 0 turns
 *     it off, and diagnoses are then evaluated on demand only
 * @param rollup5mRetentionMs how long 5-minute rollups are kept, milliseconds (default 90 days)
 * @param rollup1hRetentionMs how long 1-hour rollups are kept, milliseconds (default 2 years)
 * @param headMaxSamples head samples that trigger a flush into chunks (default 2,000,000)
 * @param query the PromQL engine's limits ({@code --query.*} flags, Prometheus's defaults)
 * @param alerting the Alertmanagers incidents are sent to, external labels, resend delay and
 *     the external URL of alert links (default: none, Prometheus's defaults)
 * @param web TLS, basic authentication and the admin endpoints ({@code --web.config.file},
 *     {@code --web.enable-admin-api}; default: plain HTTP, no authentication, admin off)
 * @param seriesLimits {@code --limits.max-series} and {@code --limits.max-series-per-metric}
 *     (default {@link SeriesLimits#DEFAULTS}; the store enforces them)
 * @param labelLimits per-series label limits and the name rule of remote write
 *     ({@code --limits.max-label-*}, {@code --limits.max-metric-name-length},
 *     {@code --allow-utf8-names}; default {@link LabelLimits#defaults()}, Mimir's)
 * @param ingestionRate the ingestion rate limit over all writes ({@code --limits.ingestion-rate},
 *     {@code --limits.ingestion-burst}; default {@link IngestionRate#OFF})
 * @param ha deduplication of Prometheus HA pairs ({@code --ha.*}; default {@link HaConfig#OFF})
 * @param tenancy one store per {@code X-Scope-OrgID} tenant ({@code --multitenancy},
 *     {@code --multitenancy.max-tenants}; default {@link Multitenancy#OFF}: one store)
 * @param minFreeDiskBytes free bytes that writes never take on the data directory's file
 *     system, &ge; 0 ({@code --storage.min-free-disk}; default
 *     {@link StoreOptions#DEFAULT_MIN_FREE_DISK_BYTES}, 64 MiB; 0 turns the floor off)
 */
public record ServerConfig(
    InetSocketAddress listen,
    Path dataDir,
    long retentionMs,
    long maxRequestBytes,
    long maxFutureMs,
    boolean walSync,
    AnalysisConfig analysis,
    Path catalogFile,
    TargetConfig targets,
    long maxReadSeries,
    long maxReadBytes,
    long maxExportSamples,
    long maxInflightWriteBytes,
    long blockCacheBytes,
    long evalIntervalMs,
    long rollup5mRetentionMs,
    long rollup1hRetentionMs,
    int headMaxSamples,
    EngineOptions query,
    AlertingConfig alerting,
    WebOptions web,
    SeriesLimits seriesLimits,
    LabelLimits labelLimits,
    IngestionRate ingestionRate,
    HaConfig ha,
    Multitenancy tenancy,
    long minFreeDiskBytes) {

  /** Validates the read limits, the block cache size, rollup retentions and the head size. */
  public ServerConfig {
    java.util.Objects.requireNonNull(query, "query");
    java.util.Objects.requireNonNull(alerting, "alerting");
    java.util.Objects.requireNonNull(web, "web");
    java.util.Objects.requireNonNull(seriesLimits, "seriesLimits");
    java.util.Objects.requireNonNull(labelLimits, "labelLimits");
    java.util.Objects.requireNonNull(ingestionRate, "ingestionRate");
    java.util.Objects.requireNonNull(ha, "ha");
    java.util.Objects.requireNonNull(tenancy, "tenancy");
    if (maxReadSeries < 1 || maxReadBytes < 1) {
      throw new IllegalArgumentException("--max-read-series (" + maxReadSeries
          + ") and --max-read-bytes (" + maxReadBytes + ") must be at least 1");
    }
    if (maxExportSamples < 1) {
      throw new IllegalArgumentException("--max-export-samples (" + maxExportSamples
          + ") must be at least 1");
    }
    if (maxInflightWriteBytes < 1) {
      throw new IllegalArgumentException("--max-inflight-write-bytes (" + maxInflightWriteBytes
          + ") must be at least 1");
    }
    if (blockCacheBytes < 0) {
      throw new IllegalArgumentException("--block-cache (" + blockCacheBytes
          + ") must be at least 0");
    }
    if (rollup5mRetentionMs < 86_400_000L) {
      throw new IllegalArgumentException("--rollup-5m-retention (" + rollup5mRetentionMs
          + " ms) must be at least 1d: rollups are written per 2-hour window");
    }
    if (rollup1hRetentionMs < rollup5mRetentionMs) {
      throw new IllegalArgumentException("--rollup-1h-retention (" + rollup1hRetentionMs
          + " ms) must be at least --rollup-5m-retention (" + rollup5mRetentionMs + " ms):"
          + " the coarse rollups are the ones kept longer");
    }
    if (evalIntervalMs < 0) {
      throw new IllegalArgumentException("--eval-interval (" + evalIntervalMs
          + " ms) must be at least 0 (0 turns the evaluator off)");
    }
    if (headMaxSamples < 1) {
      throw new IllegalArgumentException("--head-max-samples (" + headMaxSamples
          + ") must be at least 1");
    }
    if (minFreeDiskBytes < 0) {
      throw new IllegalArgumentException("--storage.min-free-disk (" + minFreeDiskBytes
          + ") must be at least 0");
    }
  }

  /** Everything but the block cache size, which takes its default. */
  public ServerConfig(InetSocketAddress listen, Path dataDir, long retentionMs,
      long maxRequestBytes, long maxFutureMs, boolean walSync, AnalysisConfig analysis,
      Path catalogFile, TargetConfig targets, long maxReadSeries, long maxReadBytes) {
    this(listen, dataDir, retentionMs, maxRequestBytes, maxFutureMs, walSync, analysis,
        catalogFile, targets, maxReadSeries, maxReadBytes, DEFAULT_MAX_EXPORT_SAMPLES,
        InflightWrites.DEFAULT_LIMIT_BYTES, StoreOptions.DEFAULT_BLOCK_CACHE_BYTES,
        DEFAULT_EVAL_INTERVAL_MS, StoreOptions.DEFAULT_ROLLUP_5M_RETENTION_MS,
        StoreOptions.DEFAULT_ROLLUP_1H_RETENTION_MS, StoreOptions.DEFAULT_HEAD_MAX_SAMPLES,
        EngineOptions.DEFAULTS, AlertingConfig.none(null), WebOptions.DEFAULTS,
        SeriesLimits.DEFAULTS, LabelLimits.defaults(), IngestionRate.OFF, HaConfig.OFF,
        Multitenancy.OFF, StoreOptions.DEFAULT_MIN_FREE_DISK_BYTES);
  }

  /** Everything but the remote-read limits, which take their defaults. */
  public ServerConfig(InetSocketAddress listen, Path dataDir, long retentionMs,
      long maxRequestBytes, long maxFutureMs, boolean walSync, AnalysisConfig analysis,
      Path catalogFile, TargetConfig targets) {
    this(listen, dataDir, retentionMs, maxRequestBytes, maxFutureMs, walSync, analysis,
        catalogFile, targets, DEFAULT_MAX_READ_SERIES, DEFAULT_MAX_READ_BYTES);
  }

  /** The storage and ingest settings with the default analysis configuration. */
  public ServerConfig(InetSocketAddress listen, Path dataDir, long retentionMs,
      long maxRequestBytes, long maxFutureMs, boolean walSync) {
    this(listen, dataDir, retentionMs, maxRequestBytes, maxFutureMs, walSync,
        AnalysisConfig.defaults(), null, TargetConfig.defaults());
  }

  /**
   * @param newAnalysis the analysis configuration
   * @return a copy using it
   */
  public ServerConfig withAnalysis(AnalysisConfig newAnalysis) {
    Copy c = new Copy(this);
    c.analysis = newAnalysis;
    return c.build();
  }

  /**
   * @param newQuery the PromQL engine's limits
   * @return a copy using them
   */
  public ServerConfig withQuery(EngineOptions newQuery) {
    Copy c = new Copy(this);
    c.query = newQuery;
    return c.build();
  }

  /**
   * @param newMaxReadSeries most series one remote-read query may select
   * @param newMaxReadBytes largest remote-read response, bytes
   * @return a copy with these remote-read limits
   */
  public ServerConfig withReadLimits(long newMaxReadSeries, long newMaxReadBytes) {
    Copy c = new Copy(this);
    c.maxReadSeries = newMaxReadSeries;
    c.maxReadBytes = newMaxReadBytes;
    return c.build();
  }

  /**
   * @param newMaxExportSamples most samples one export may write, &ge; 1
   * @return a copy with this export limit
   */
  public ServerConfig withMaxExportSamples(long newMaxExportSamples) {
    Copy c = new Copy(this);
    c.maxExportSamples = newMaxExportSamples;
    return c.build();
  }

  /**
   * @param newMaxInflightWriteBytes most bytes of remote-write bodies in flight, &ge; 1
   * @return a copy with this bound
   * @throws IllegalArgumentException if below 1
   */
  public ServerConfig withMaxInflightWriteBytes(long newMaxInflightWriteBytes) {
    Copy c = new Copy(this);
    c.maxInflightWriteBytes = newMaxInflightWriteBytes;
    return c.build();
  }

  /**
   * @param newBlockCacheBytes RocksDB block cache size in bytes, &ge; 0
   * @return a copy with that block cache size
   */
  public ServerConfig withBlockCacheBytes(long newBlockCacheBytes) {
    Copy c = new Copy(this);
    c.blockCacheBytes = newBlockCacheBytes;
    return c.build();
  }

  /**
   * @param newWeb TLS, basic authentication and the admin endpoints
   * @return a copy using them
   */
  public ServerConfig withWeb(WebOptions newWeb) {
    Copy c = new Copy(this);
    c.web = newWeb;
    return c.build();
  }

  /** The evaluator's default interval, 15 s as Prometheus's {@code evaluation_interval}. */
  public static final long DEFAULT_EVAL_INTERVAL_MS = 15_000L;

  /**
   * @param ms how often the always-on evaluator runs, milliseconds; 0 turns it off
   * @return a copy with that setting
   */
  public ServerConfig withEvalInterval(long ms) {
    Copy c = new Copy(this);
    c.evalIntervalMs = ms;
    return c.build();
  }

  /**
   * @param newAlerting Alertmanagers, external labels, resend delay, external URL
   * @return a copy sending alerts so
   */
  public ServerConfig withAlerting(AlertingConfig newAlerting) {
    Copy c = new Copy(this);
    c.alerting = newAlerting;
    return c.build();
  }

  /**
   * @param fiveMinuteMs 5-minute rollup retention, milliseconds, &gt; 0
   * @param oneHourMs 1-hour rollup retention, milliseconds, &gt; 0
   * @param newHeadMaxSamples head flush threshold in samples, &ge; 1
   * @return a copy with these store settings
   */
  public ServerConfig withStoreTuning(long fiveMinuteMs, long oneHourMs, int newHeadMaxSamples) {
    Copy c = new Copy(this);
    c.rollup5mRetentionMs = fiveMinuteMs;
    c.rollup1hRetentionMs = oneHourMs;
    c.headMaxSamples = newHeadMaxSamples;
    return c.build();
  }

  /**
   * @param newSeriesLimits the active-series limits
   * @return a copy enforcing them
   */
  public ServerConfig withSeriesLimits(SeriesLimits newSeriesLimits) {
    Copy c = new Copy(this);
    c.seriesLimits = newSeriesLimits;
    return c.build();
  }

  /**
   * @param newLabelLimits per-series label limits and the name rule of remote write
   * @param newIngestionRate the ingestion rate limit over all writes
   * @return a copy with these write limits
   */
  public ServerConfig withWriteLimits(LabelLimits newLabelLimits, IngestionRate newIngestionRate) {
    Copy c = new Copy(this);
    c.labelLimits = newLabelLimits;
    c.ingestionRate = newIngestionRate;
    return c.build();
  }

  /**
   * @param newHa deduplication of Prometheus HA pairs
   * @return a copy deduplicating so
   */
  public ServerConfig withHa(HaConfig newHa) {
    Copy c = new Copy(this);
    c.ha = newHa;
    return c.build();
  }

  /**
   * @param newTenancy one store per tenant, or {@link Multitenancy#OFF}
   * @return a copy serving tenants so
   */
  public ServerConfig withTenancy(Multitenancy newTenancy) {
    Copy c = new Copy(this);
    c.tenancy = newTenancy;
    return c.build();
  }

  /**
   * @param bytes free bytes writes never take, &ge; 0; 0 turns the floor off
   * @return a copy with that free-space floor
   */
  public ServerConfig withMinFreeDisk(long bytes) {
    Copy c = new Copy(this);
    c.minFreeDiskBytes = bytes;
    return c.build();
  }

  /** A mutable copy of every component, so each {@code with…} names only what it changes. */
  private static final class Copy {
    InetSocketAddress listen;
    Path dataDir;
    long retentionMs;
    long maxRequestBytes;
    long maxFutureMs;
    boolean walSync;
    AnalysisConfig analysis;
    Path catalogFile;
    TargetConfig targets;
    long maxReadSeries;
    long maxReadBytes;
    long maxExportSamples;
    long maxInflightWriteBytes;
    long blockCacheBytes;
    long evalIntervalMs;
    long rollup5mRetentionMs;
    long rollup1hRetentionMs;
    int headMaxSamples;
    EngineOptions query;
    AlertingConfig alerting;
    WebOptions web;
    SeriesLimits seriesLimits;
    LabelLimits labelLimits;
    IngestionRate ingestionRate;
    HaConfig ha;
    Multitenancy tenancy;
    long minFreeDiskBytes;

    Copy(ServerConfig c) {
      listen = c.listen;
      dataDir = c.dataDir;
      retentionMs = c.retentionMs;
      maxRequestBytes = c.maxRequestBytes;
      maxFutureMs = c.maxFutureMs;
      walSync = c.walSync;
      analysis = c.analysis;
      catalogFile = c.catalogFile;
      targets = c.targets;
      maxReadSeries = c.maxReadSeries;
      maxReadBytes = c.maxReadBytes;
      maxExportSamples = c.maxExportSamples;
      maxInflightWriteBytes = c.maxInflightWriteBytes;
      blockCacheBytes = c.blockCacheBytes;
      evalIntervalMs = c.evalIntervalMs;
      rollup5mRetentionMs = c.rollup5mRetentionMs;
      rollup1hRetentionMs = c.rollup1hRetentionMs;
      headMaxSamples = c.headMaxSamples;
      query = c.query;
      alerting = c.alerting;
      web = c.web;
      seriesLimits = c.seriesLimits;
      labelLimits = c.labelLimits;
      ingestionRate = c.ingestionRate;
      ha = c.ha;
      tenancy = c.tenancy;
      minFreeDiskBytes = c.minFreeDiskBytes;
    }

    ServerConfig build() {
      return new ServerConfig(listen, dataDir, retentionMs, maxRequestBytes, maxFutureMs,
          walSync, analysis, catalogFile, targets, maxReadSeries, maxReadBytes, maxExportSamples,
          maxInflightWriteBytes, blockCacheBytes, evalIntervalMs, rollup5mRetentionMs,
          rollup1hRetentionMs, headMaxSamples, query, alerting, web, seriesLimits, labelLimits,
          ingestionRate, ha, tenancy, minFreeDiskBytes);
    }
  }

  /**
   * @return the store options these settings give, with the free-space floor
   *     ({@code minFreeDiskBytes}) for the server's store and, with {@code --multitenancy},
   *     each tenant's (a floor costs no disk)
   * @throws IllegalArgumentException if a retention is not positive or the head size below 1
   */
  public StoreOptions storeOptions() {
    return new StoreOptions(dataDir, retentionMs, walSync, blockCacheBytes, rollup5mRetentionMs,
        rollup1hRetentionMs, headMaxSamples, seriesLimits,
        minFreeDiskBytes);
  }

  /** Default retention: 30 days in milliseconds. */
  public static final long DEFAULT_RETENTION_MS = 30L * 86_400_000L;
  /** Default body cap: 32 MiB. */
  public static final long DEFAULT_MAX_REQUEST_BYTES = 32L << 20;
  /** Default future tolerance: 10 minutes in milliseconds. */
  public static final long DEFAULT_MAX_FUTURE_MS = 10L * 60_000L;
  /**
   * Default series cap per remote-read query: 10000 series of a day at 15 s are ~58 M samples,
   * about what one Prometheus query should ever pull over the network.
   */
  public static final long DEFAULT_MAX_READ_SERIES = 10_000L;
  /** Default remote-read response cap: 64 MiB, the order of Prometheus's own read limits. */
  public static final long DEFAULT_MAX_READ_BYTES = 64L << 20;
  /**
   * Default export cap: 100,000,000 samples. The export streams in bounded memory, so the cap
   * bounds time and traffic, not the heap: at about 20 bytes a sample this is 2 GB of JSON lines,
   * e.g. 10,000 series of 15 s scrapes over 42 hours, minutes of one blocking thread. It is twice
   * {@code --query.max-samples}' default: an export is a bulk copy, larger than one query.
   */
  public static final long DEFAULT_MAX_EXPORT_SAMPLES = 100_000_000L;

  /**
   * @param dataDir the data directory
   * @return a config listening on a free loopback port with every other default; for tests
   */
  public static ServerConfig forTests(Path dataDir) {
    return new ServerConfig(new InetSocketAddress("127.0.0.1", 0), dataDir,
        DEFAULT_RETENTION_MS, DEFAULT_MAX_REQUEST_BYTES, DEFAULT_MAX_FUTURE_MS, false);
  }

  /**
   * @param hostPort {@code HOST:PORT}, {@code :PORT} (all interfaces) or {@code [::1]:PORT}
   * @return the socket address, unresolved names resolved now
   * @throws IllegalArgumentException if there is no valid port
   */
  public static InetSocketAddress parseListen(String hostPort) {
    int colon = hostPort.lastIndexOf(':');
    if (colon < 0) {
      throw new IllegalArgumentException("--listen \"" + hostPort + "\" must be HOST:PORT or :PORT");
    }
    String host = hostPort.substring(0, colon);
    int port;
    try {
      port = Integer.parseInt(hostPort.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--listen \"" + hostPort + "\" has no valid port", e);
    }
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("--listen port " + port + " is outside 0..65535");
    }
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    return host.isEmpty() ? new InetSocketAddress(port) : new InetSocketAddress(host, port);
  }
}
