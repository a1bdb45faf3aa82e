package io.inferlens.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --multitenancy} with real senders and a real reader: Debian's Prometheus 2.42 scrapes
 * InferLens's own {@code /metrics} every second as job {@code sender-a} and remote-writes it to
 * tenant {@code team-a}, and Debian's vmagent does the same as {@code sender-b} for
 * {@code team-b} with {@code -remoteWrite.headers=X-Scope-OrgID:team-b}. Each tenant's PromQL
 * then sees its own job only. A Prometheus with no data of its own and {@code remote_read} of
 * team-a answers PromQL with team-a's series and none of team-b's; one naming no tenant gets
 * nothing (InferLens answers its reads 401).
 *
 * <p>Debian's Prometheus 2.42 does not send {@code remote_write}'s or {@code remote_read}'s
 * {@code headers} (its OpenTelemetry patch drops them; a server printing the requests it
 * receives showed no {@code X-Scope-OrgID}), so its URLs name the tenant with the
 * {@code ?tenant=} parameter, the fallback {@link Tenants#PARAM} exists for; vmagent sends the
 * header itself.
 */
class PrometheusTenantsTest {

  private static final Path PROMETHEUS = Path.of("/usr/bin/prometheus");
  private static final Path VMAGENT = Path.of("/usr/bin/vmagent");
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  private static String scrape(URI inferlens, String job) {
    return String.join("\n",
        "global:",
        "  scrape_interval: 1s",
        "scrape_configs:",
        "  - job_name: " + job,
        "    static_configs:",
        "      - targets: ['" + inferlens.getAuthority() + "']",
        "");
  }

  private static String reader(URI inferlens, String tenant) {
    return String.join("\n",
        "global:",
        "  scrape_interval: 15s",
        "remote_read:",
        "  - url: " + inferlens + "/api/v1/read" + (tenant == null ? "" : "?tenant=" + tenant),
        "    read_recent: true",
        "");
  }

  /** @return the {@code job} values of {@code query}'s instant result, asked at {@code base} */
  private static Set<String> jobs(URI base, String query, String... headers) throws Exception {
    JsonNode body = JSON.readTree(Requests.get(base.resolve("/api/v1/query?query="
        + Requests.enc(query)), headers).body());
    assertThat(body.path("status").asText()).as(body.toString()).isEqualTo("success");
    Set<String> out = new TreeSet<>();
    body.path("data").path("result").forEach(r -> out.add(r.path("metric").path("job").asText()));
    return out;
  }

  @Test
  void eachTenantsSendersAndReadersSeeOnlyThatTenant() throws Exception {
    ExternalProcesses.requireBinary(PROMETHEUS, "prometheus");
    ExternalProcesses.requireBinary(VMAGENT, "victoria-metrics");
    ServerConfig cfg = ServerConfig.forTests(dir.resolve("inferlens")).withEvalInterval(0)
        .withTenancy(new Multitenancy(true, 10));
    ExternalProcesses.Prom a = null;
    ExternalProcesses.Prom b = null;
    ExternalProcesses.Prom readA = null;
    ExternalProcesses.Prom readNone = null;
    try (InferLensServer server = InferLensServer.start(cfg, Clock.systemUTC())) {
      URI base = URI.create("http://127.0.0.1:" + server.port());
      a = ExternalProcesses.startPrometheus(dir, "sender-a", scrape(base, "sender-a")
          + "remote_write:\n  - url: " + base + "/api/v1/write?tenant=team-a\n"
          + "    queue_config: {batch_send_deadline: 1s}\n");
      b = ExternalProcesses.startVmagent(dir, "sender-b", scrape(base, "sender-b"),
          base + "/api/v1/write", "-remoteWrite.headers=X-Scope-OrgID:team-b");
      readA = ExternalProcesses.startPrometheus(dir, "reader-a", reader(base, "team-a"));
      readNone = ExternalProcesses.startPrometheus(dir, "reader-none", reader(base, null));
      a.awaitReady();
      readA.awaitReady();
      readNone.awaitReady();

      // Bounded wait for both senders' first remote writes (1 s scrapes, 1 s batches).
      long deadline = System.currentTimeMillis() + 60_000;
      while (System.currentTimeMillis() < deadline
          && (jobs(base, "up", Tenants.HEADER, "team-a").isEmpty()
              || jobs(base, "up", Tenants.HEADER, "team-b").isEmpty())) {
        Thread.sleep(500);
      }
      String everything = "count by (job) ({__name__=~\".+\"})";
      assertThat(jobs(base, everything, Tenants.HEADER, "team-a"))
          .as("team-a's PromQL; Prometheus's log:\n%s", ExternalProcesses.tail(a.log()))
          .containsExactly("sender-a");
      assertThat(jobs(base, everything, Tenants.HEADER, "team-b"))
          .as("team-b's PromQL; vmagent's log:\n%s", ExternalProcesses.tail(b.log()))
          .containsExactly("sender-b");
      assertThat(Requests.get(base.resolve("/api/v1/query?query=up")).statusCode())
          .as("a query naming no tenant").isEqualTo(401);

      // A Prometheus reading team-a through remote_read sees team-a's series only.
      String selector = "count by (job) ({job=~\"sender-.+\"})";
      assertThat(jobs(readA.base(), selector)).as("reader-a log:\n%s",
          ExternalProcesses.tail(readA.log())).containsExactly("sender-a");
      assertThat(jobs(readNone.base(), selector))
          .as("a reader naming no tenant gets nothing").isEmpty();
      String metrics = Requests.get(base.resolve("/metrics")).body();
      assertThat(metrics).containsPattern(
          "inferlens_samples_ingested_total\\{tenant=\"team-a\"} [1-9]")
          .containsPattern("inferlens_samples_ingested_total\\{tenant=\"team-b\"} [1-9]")
          .containsPattern(
              "inferlens_read_requests_total\\{code=\"200\",tenant=\"team-a\",type=\"\\w+\"} [1-9]");
    } finally {
      for (ExternalProcesses.Prom p : new ExternalProcesses.Prom[] {a, b, readA, readNone}) {
        if (p != null) {
          ExternalProcesses.stop(p.process());
        }
      }
    }
  }
}
