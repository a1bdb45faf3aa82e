package io.inferlens.api;

import static io.inferlens.api.Requests.request;
import static io.inferlens.api.Requests.series;
import static io.inferlens.api.Requests.snappy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real server started with a web configuration file (TLS with an openssl-made certificate,
 * basic auth with a bcrypt hash, a response header) and the admin API off, reached over HTTPS by
 * a Java client that trusts only that certificate: every kind of route refuses a request without
 * or with wrong credentials (401, {@code WWW-Authenticate: Basic}), serves one with the right
 * ones, and the admin endpoints answer Prometheus's "admin APIs disabled".
 */
class WebSecurityTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String USER = "alice";
  private static final String PASSWORD = "wonder land:42";

  @TempDir static Path dir;
  static InferLensServer server;
  static HttpClient client;
  static URI base;

  @BeforeAll
  static void start() throws Exception {
    TestTls.Cert cert = TestTls.selfSigned(dir);
    // Relative file names: resolved against the file's directory, as exporter-toolkit does.
    Path web = TestTls.webConfig(dir, String.join("\n",
        "tls_server_config:",
        "  cert_file: server.crt",
        "  key_file: server.key",
        "http_server_config:",
        "  headers:",
        "    X-Frame-Options: deny",
        "basic_auth_users:",
        "  " + USER + ": " + TestTls.bcrypt(PASSWORD),
        "  bob: " + TestTls.bcrypt("builder"),
        ""));
    server = InferLensServer.start(ServerConfig.forTests(dir.resolve("data")).withEvalInterval(0)
        .withWeb(new WebOptions(WebConfigFile.load(web), false)), Clock.systemUTC());
    client = TestTls.client(cert.certFile());
    base = URI.create("https://127.0.0.1:" + server.port());
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
  }

  private static HttpResponse<String> get(String path, String auth) throws Exception {
    return TestTls.send(client, base.resolve(path), auth, null);
  }

  private static HttpResponse<String> write(String auth, long ts) throws Exception {
    byte[] body = snappy(request(series(new String[] {"__name__", "secured_metric", "job", "t"},
        ts, 7.0)));
    return TestTls.send(client, base.resolve("/api/v1/write"), auth, body,
        "Content-Type", "application/x-protobuf", "Content-Encoding", "snappy",
        "X-Prometheus-Remote-Write-Version", "0.1.0");
  }

  /** One route of each kind: query API, REST, UI, self-metrics, health, remote read. */
  private static final List<String> GETS = List.of("/api/v1/query?query=1",
      "/api/v1/targets", "/", "/metrics", "/-/healthy", "/-/ready", "/api/v1/openapi.yaml");

  private static void assertUnauthorized(HttpResponse<String> r) {
    assertThat(r.statusCode()).as("%s %s", r.uri(), r.body()).isEqualTo(401);
    assertThat(r.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(v ->
        assertThat(v).startsWith("Basic "));
    assertThat(r.body()).isEqualTo("Unauthorized\n");
  }

  @Test
  void withoutCredentialsEveryRouteAnswers401() throws Exception {
    for (String path : GETS) {
      assertUnauthorized(get(path, null));
    }
    assertUnauthorized(write(null, System.currentTimeMillis()));
    assertUnauthorized(TestTls.send(client, base.resolve("/api/v1/read"), null, new byte[] {1}));
    assertUnauthorized(TestTls.send(client, base.resolve("/api/v1/admin/flush"), null,
        new byte[0]));
  }

  @Test
  void wrongCredentialsAnswer401() throws Exception {
    long now = System.currentTimeMillis();
    for (String auth : List.of(TestTls.basic(USER, "wrong"), TestTls.basic("mallory", PASSWORD),
        TestTls.basic(USER, PASSWORD + "x"), TestTls.basic("bob", PASSWORD),
        "Basic not-base64!", "Bearer " + PASSWORD, TestTls.basic(USER, ""))) {
      assertUnauthorized(get("/api/v1/query?query=1", auth));
      assertUnauthorized(write(auth, now));
    }
  }

  @Test
  void rightCredentialsWriteQueryAndSeeTheUi() throws Exception {
    String auth = TestTls.basic(USER, PASSWORD);
    long now = System.currentTimeMillis();
    HttpResponse<String> w = write(auth, now);
    assertThat(w.statusCode()).as(w.body()).isEqualTo(204);
    // The second request is answered from the cache of verified credentials, the same way.
    assertThat(write(auth, now).statusCode()).isEqualTo(204);
    assertThat(write("basic " + auth.substring(6), now).statusCode())
        .as("the scheme is case-insensitive").isEqualTo(204);

    HttpResponse<String> q = get("/api/v1/query?query=secured_metric&time=" + now / 1000.0, auth);
    assertThat(q.statusCode()).as(q.body()).isEqualTo(200);
    JsonNode result = JSON.readTree(q.body()).path("data").path("result");
    assertThat(result).hasSize(1);
    assertThat(result.get(0).path("value").get(1).asText()).isEqualTo("7");

    HttpResponse<String> ui = get("/", auth);
    assertThat(ui.statusCode()).isEqualTo(200);
    assertThat(ui.body()).contains("<title>InferLens</title>");
    assertThat(ui.headers().firstValue("X-Frame-Options")).as("http_server_config.headers")
        .hasValue("deny");
    for (String path : GETS) {
      assertThat(get(path, auth).statusCode()).as(path).isEqualTo(200);
    }
    assertThat(get("/-/ready", auth).body()).isEqualTo("InferLens is Ready.\n");
    // The other user, with his own password.
    assertThat(get("/api/v1/targets", TestTls.basic("bob", "builder")).statusCode())
        .isEqualTo(200);
  }

  @Test
  void adminEndpointsAreDisabledWithoutTheFlag() throws Exception {
    for (String op : List.of("flush", "compact")) {
      HttpResponse<String> r = TestTls.send(client, base.resolve("/api/v1/admin/" + op),
          TestTls.basic(USER, PASSWORD), new byte[0]);
      assertThat(r.statusCode()).as(r.body()).isEqualTo(403);
      JsonNode body = JSON.readTree(r.body());
      assertThat(body.path("status").asText()).isEqualTo("error");
      assertThat(body.path("errorType").asText()).isEqualTo("forbidden");
      assertThat(body.path("error").asText()).isEqualTo("admin APIs disabled");
    }
  }

  @Test
  void plainHttpIsNotServedOnATlsPort() {
    URI plain = URI.create("http://127.0.0.1:" + server.port() + "/-/healthy");
    assertThatThrownBy(() -> TestTls.send(HttpClient.newHttpClient(), plain, null, null))
        .isInstanceOf(IOException.class);
  }
}
