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
}
