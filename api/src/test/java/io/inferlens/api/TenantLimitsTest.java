package io.inferlens.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.inferlens.ingest.IngestionRate;
import io.inferlens.ingest.LabelLimits;
import io.inferlens.storage.SeriesLimits;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --multitenancy.limits}: a listed tenant's values replace the flags' and the others keep
 * the flags; every malformed file is refused at start-up naming the file, tenant and key.
 */
class TenantLimitsTest {

  @TempDir Path dir;

  private final ServerConfig base = ServerConfig.forTests(Path.of("unused"))
      .withSeriesLimits(new SeriesLimits(1000, 100))
      .withWriteLimits(LabelLimits.defaults(), new IngestionRate(500, 0));

  private TenantLimits load(String yaml) throws Exception {
    return TenantLimits.load(Files.writeString(dir.resolve("limits.yml"), yaml), base);
  }

  private static ServerConfig parse(String... args) {
    Main.Serve serve = new Main.Serve();
    new picocli.CommandLine(serve).parseArgs(args);
    return serve.config();
  }

  @Test
  void aListedTenantGetsItsValuesAndTheOthersTheFlags() throws Exception {
    TenantLimits limits = load("""
        overrides:
          team-a:
            max-series: 5000
            max-series-per-metric: 0
            ingestion-rate: 0
            max-label-names-per-series: 40
          "(b)":
            ingestion-burst: 2000
        """);
    ServerConfig a = limits.apply("team-a", base);
    assertThat(a.seriesLimits()).isEqualTo(new SeriesLimits(5000, 0));
    assertThat(a.ingestionRate().isOff()).isTrue();
    assertThat(a.labelLimits().maxLabelNamesPerSeries()).isEqualTo(40);
    assertThat(a.labelLimits().maxLabelNameLength())
        .isEqualTo(LabelLimits.DEFAULT_MAX_LABEL_NAME_LENGTH);
    assertThat(limits.apply("(b)", base).ingestionRate()).isEqualTo(new IngestionRate(500, 2000));
    assertThat(limits.apply("team-c", base)).isSameAs(base);
    assertThat(load("").overrides()).isEmpty();
    assertThat(load("overrides:\n").overrides()).isEmpty();
  }

  @Test
  void everyMistakeIsRefusedNamingTheTenantAndKey() {
    String[][] cases = {
        {"overides: {}\n", "unknown key overides"},
        {"overrides: {team-a: {max_series: 1}}\n", "overrides.team-a.max_series: unknown limit"},
        {"overrides: {team-a: {max-series: lots}}\n", "overrides.team-a.max-series: \"lots\" is not an integer"},
        {"overrides: {team-a: {max-series: 1.5}}\n", "is not an integer"},
        {"overrides: {team-a: {max-series: -1}}\n", "overrides.team-a: --limits.max-series"},
        {"overrides: {a/b: {max-series: 1}}\n", "overrides.a/b: not a tenant id"},
        {"overrides: {team-a: {max-label-names-per-series: 0}}\n",
            "--limits.max-label-names-per-series"},
        {"overrides: {team-a: {max-label-name-length: 9999999999}}\n", "is over"},
        {"overrides: [team-a]\n", "overrides must map tenant ids"},
        {"overrides: {team-a: {max-series: 1}, team-a: {max-series: 2}}\n",
            "not valid YAML at line 1: Duplicate field 'team-a'"},
        {"overrides: {team-a: {max-series: 99999999999999999999}}\n", "is too large"},
    };
    for (String[] c : cases) {
      assertThatThrownBy(() -> load(c[0])).as(c[0]).isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("--multitenancy.limits " + dir.resolve("limits.yml"))
          .hasMessageContaining(c[1]);
    }
    // A burst without a rate is refused for a tenant as for the flags.
    ServerConfig noRate = base.withWriteLimits(LabelLimits.defaults(), IngestionRate.OFF);
    assertThatThrownBy(() -> TenantLimits.load(Files.writeString(dir.resolve("b.yml"),
        "overrides: {t: {ingestion-burst: 10}}\n"), noRate))
        .hasMessageContaining("overrides.t: --limits.ingestion-burst");
  }

  @Test
  void theFlagsReachTheConfigurationAndNeedMultitenancy() throws Exception {
    Path f = Files.writeString(dir.resolve("l.yml"), "overrides: {team-a: {max-series: 7}}\n");
    ServerConfig c = parse("--multitenancy", "--multitenancy.max-tenants", "5",
        "--multitenancy.limits", f.toString());
    assertThat(c.tenancy().enabled()).isTrue();
    assertThat(c.tenancy().maxTenants()).isEqualTo(5);
    assertThat(c.tenancy().limits().apply("team-a", c).seriesLimits().maxSeries()).isEqualTo(7);
    assertThat(parse().tenancy()).isEqualTo(Multitenancy.OFF);
    assertThatThrownBy(() -> parse("--multitenancy.limits", f.toString()))
        .hasMessageContaining("--multitenancy.limits needs --multitenancy");
    assertThatThrownBy(() -> parse("--multitenancy", "--multitenancy.max-tenants", "0"))
        .hasMessageContaining("--multitenancy.max-tenants (0) must be at least 1");
    assertThatThrownBy(() -> parse("--multitenancy.max-tenants", "5"))
        .hasMessageContaining("--multitenancy.max-tenants needs --multitenancy");
    assertThatThrownBy(() -> parse("--multitenancy", "--multitenancy.limits",
        dir.resolve("nope.yml").toString())).hasMessageEndingWith("nope.yml: no such file");
  }
}
