package io.inferlens.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import picocli.CommandLine;
import org.junit.jupiter.api.Test;

/** The {@code serve} options as picocli parses them into a {@link ServerConfig}. */
class ServeOptionsTest {

  private static ServerConfig parse(String... args) {
    Main.Serve serve = new Main.Serve();
    new CommandLine(serve).parseArgs(args);
    return serve.config();
  }

  @Test
  void evaluatorRunsEvery15sByDefaultAndZeroTurnsItOff() {
    assertThat(parse().evalIntervalMs()).isEqualTo(15_000);
    assertThat(parse("--eval-interval", "1m").evalIntervalMs()).isEqualTo(60_000);
    assertThat(parse("--eval-interval", "0s").evalIntervalMs()).isZero();
    assertThatThrownBy(() -> parse("--eval-interval", "-5s"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--eval-interval");
  }

  @Test
  void exportLimitDefaultsTo100MillionSamplesAndMustBePositive() {
    assertThat(parse().maxExportSamples()).isEqualTo(100_000_000L);
    assertThat(parse("--max-export-samples", "5000").maxExportSamples()).isEqualTo(5_000L);
    assertThatThrownBy(() -> parse("--max-export-samples", "0"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--max-export-samples");
  }

  @Test
  void inflightWriteBytesDefaultsTo16MibAndMustBePositive() {
    assertThat(parse().maxInflightWriteBytes()).isEqualTo(16L << 20);
    assertThat(parse("--max-inflight-write-bytes", "1GiB").maxInflightWriteBytes())
        .isEqualTo(1L << 30);
    assertThatThrownBy(() -> parse("--max-inflight-write-bytes", "0"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--max-inflight-write-bytes");
  }

  @Test
  void storeTuningOptions() {
    ServerConfig c = parse("--rollup-5m-retention", "30d", "--rollup-1h-retention", "365d",
        "--head-max-samples", "1000");
    assertThat(c.storeOptions().rollup5mRetentionMs()).isEqualTo(30L * 86_400_000L);
    assertThat(c.storeOptions().rollup1hRetentionMs()).isEqualTo(365L * 86_400_000L);
    assertThat(c.storeOptions().headMaxSamples()).isEqualTo(1000);
    assertThat(parse().storeOptions().rollup5mRetentionMs()).isEqualTo(90L * 86_400_000L);
    assertThatThrownBy(() -> parse("--head-max-samples", "0"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--head-max-samples");
  }

  @Test
  void minFreeDiskDefaultsTo64MibForEveryStoreAndZeroTurnsItOff() {
    assertThat(parse().storeOptions().minFreeDiskBytes()).isEqualTo(64L << 20);
    assertThat(parse("--multitenancy").storeOptions().minFreeDiskBytes()).isEqualTo(64L << 20);
    assertThat(parse("--storage.min-free-disk", "1GiB").storeOptions().minFreeDiskBytes())
        .isEqualTo(1L << 30);
    assertThat(parse("--storage.min-free-disk", "0").storeOptions().minFreeDiskBytes()).isZero();
    assertThatThrownBy(() -> parse("--storage.min-free-disk", "lots"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--storage.min-free-disk");
  }

  @Test
  void badDurationsNameTheirFlag() {
    assertThatThrownBy(() -> parse("--rollup-5m-retention", "abc"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--rollup-5m-retention").hasMessageContaining("positive");
    assertThatThrownBy(() -> parse("--rollup-1h-retention", "0"))
        .hasMessageContaining("--rollup-1h-retention");
    assertThatThrownBy(() -> parse("--retention", "-1d")).hasMessageContaining("--retention");
    assertThatThrownBy(() -> parse("--rollup-5m-retention", "10s"))
        .hasMessageContaining("--rollup-5m-retention").hasMessageContaining("at least 1d");
    assertThatThrownBy(() -> parse("--rollup-1h-retention", "1d"))
        .hasMessageContaining("at least --rollup-5m-retention");
  }

  @Test
  void alertingOptions() {
    AlertingConfig none = parse().alerting();
    assertThat(none.alertmanagers()).isEmpty();
    assertThat(none.resendDelayMs()).isEqualTo(60_000);
    assertThat(none.queueCapacity()).isEqualTo(10_000);
    assertThat(none.externalUrl()).isNull();
    AlertingConfig c = parse("--alertmanager.url", "http://127.0.0.1:9093",
        "--alertmanager.url", "https://am.example.com/", "--external-label", "cluster=prod",
        "--external-label", "region=eu", "--alert.resend-delay", "30s",
        "--alertmanager.notification-queue-capacity", "50",
        "--web.external-url", "https://inferlens.example.com/").alerting();
    assertThat(c.alertmanagers()).hasSize(2);
    assertThat(AlertingConfig.postUrl(c.alertmanagers().get(1)).toString())
        .isEqualTo("https://am.example.com/api/v2/alerts");
    assertThat(c.externalLabels()).containsEntry("cluster", "prod").containsEntry("region", "eu");
    assertThat(c.resendDelayMs()).isEqualTo(30_000);
    assertThat(c.queueCapacity()).isEqualTo(50);
    assertThat(c.externalUrl()).isEqualTo("https://inferlens.example.com");
    assertThatThrownBy(() -> parse("--alertmanager.url", "127.0.0.1:9093"))
        .hasMessageContaining("--alertmanager.url").hasMessageContaining("http://");
    assertThatThrownBy(() -> parse("--external-label", "0bad=x"))
        .hasMessageContaining("--external-label").hasMessageContaining("[a-zA-Z_]");
    assertThatThrownBy(() -> parse("--alert.resend-delay", "500ms"))
        .hasMessageContaining("--alert.resend-delay").hasMessageContaining("at least 1s");
    assertThatThrownBy(() -> parse("--alertmanager.notification-queue-capacity", "0"))
        .hasMessageContaining("--alertmanager.notification-queue-capacity");
    assertThatThrownBy(() -> parse("--web.external-url", "inferlens:9201"))
        .hasMessageContaining("--web.external-url");
  }

  @Test
  void writeLimitOptions() {
    ServerConfig d = parse();
    assertThat(d.labelLimits()).isEqualTo(io.inferlens.ingest.LabelLimits.defaults());
    assertThat(d.ingestionRate().isOff()).isTrue();
    ServerConfig c = parse("--limits.max-label-names-per-series", "40",
        "--limits.max-label-name-length", "100", "--limits.max-label-value-length", "200",
        "--limits.max-metric-name-length", "300", "--allow-utf8-names",
        "--limits.ingestion-rate", "1000.5", "--limits.ingestion-burst", "5000");
    assertThat(c.labelLimits()).isEqualTo(
        new io.inferlens.ingest.LabelLimits(40, 100, 200, 300, true));
    assertThat(c.ingestionRate()).isEqualTo(new io.inferlens.ingest.IngestionRate(1000.5, 5000));
    assertThatThrownBy(() -> parse("--limits.max-label-value-length", "0"))
        .hasMessageContaining("--limits.max-label-value-length");
    assertThatThrownBy(() -> parse("--limits.ingestion-rate", "-1"))
        .hasMessageContaining("--limits.ingestion-rate");
    assertThatThrownBy(() -> parse("--limits.ingestion-burst", "-1"))
        .hasMessageContaining("--limits.ingestion-burst");
  }

  @Test
  void haOptionsGoTogetherAndDefaultToOff() {
    ServerConfig d = parse();
    assertThat(d.ha().isOff()).isTrue();
    assertThat(d.ha().failoverTimeoutMs()).isEqualTo(30_000);
    ServerConfig c = parse("--ha.cluster-label", "cluster", "--ha.replica-label", "__replica__",
        "--ha.failover-timeout", "3s", "--ha.max-clusters", "5");
    assertThat(c.ha()).isEqualTo(
        new io.inferlens.ingest.HaConfig("cluster", "__replica__", 3_000, 5));
    assertThatThrownBy(() -> parse("--ha.cluster-label", "cluster"))
        .hasMessageContaining("--ha.cluster-label and --ha.replica-label go together");
    assertThatThrownBy(() -> parse("--ha.replica-label", "__replica__"))
        .hasMessageContaining("got --ha.replica-label only");
    assertThatThrownBy(() -> parse("--ha.cluster-label", "c", "--ha.replica-label", "r",
        "--ha.failover-timeout", "0s")).hasMessageContaining("--ha.failover-timeout");
    assertThatThrownBy(() -> parse("--ha.max-clusters", "-1"))
        .hasMessageContaining("--ha.max-clusters");
  }
}
