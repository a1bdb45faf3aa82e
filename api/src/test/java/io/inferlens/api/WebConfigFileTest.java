package io.inferlens.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The web configuration file as {@code serve --web.config.file} reads it: what Prometheus's
 * format allows is accepted, and every wrong file fails at start-up naming the file and the
 * field (exporter-toolkit docs/web-configuration.md, web/tls_config.go).
 */
class WebConfigFileTest {

  @TempDir static Path dir;
  static TestTls.Cert cert;
  static String hash;

  @BeforeAll
  static void material() throws Exception {
    cert = TestTls.selfSigned(dir);
    hash = TestTls.bcrypt("pw");
  }

  private static WebConfigFile load(String yaml) throws Exception {
    return WebConfigFile.load(TestTls.webConfig(dir, yaml));
  }

  private static void refused(String yaml, String... fragments) {
    assertThatThrownBy(() -> load(yaml)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("--web.config.file " + dir.resolve("web.yml") + ": ")
        .satisfies(e -> {
          for (String f : fragments) {
            assertThat(e.getMessage()).contains(f);
          }
        });
  }

  @Test
  void anEmptyFileTurnsNothingOn() throws Exception {
    WebConfigFile c = load("");
    assertThat(c.tls()).isNull();
    assertThat(c.basicAuth()).isFalse();
    assertThat(load("basic_auth_users:\n").basicAuth()).isFalse();
  }

  @Test
  void theFullFormatParses() throws Exception {
    WebConfigFile c = load("tls_server_config:\n"
        + "  cert_file: server.crt\n  key_file: " + cert.keyFile() + "\n"
        + "  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: server.crt\n"
        + "  min_version: TLS13\n  max_version: TLS13\n"
        + "http_server_config:\n  http2: true\n  headers:\n"
        + "    Strict-Transport-Security: max-age=31536000\n    X-Content-Type-Options: nosniff\n"
        + "basic_auth_users:\n  alice: " + hash + "\n  bob: '" + hash + "'\n");
    assertThat(c.tls().protocols()).containsExactly("TLSv1.3");
    assertThat(c.tls().clientAuthType()).isEqualTo("RequireAndVerifyClientCert");
    assertThat(c.tls().clientCaPem()).isEqualTo(Files.readAllBytes(cert.certFile()));
    assertThat(c.users()).containsOnlyKeys("alice", "bob").containsEntry("alice", hash);
    assertThat(c.headers()).containsEntry("X-Content-Type-Options", "nosniff")
        .containsEntry("Strict-Transport-Security", "max-age=31536000");
    assertThat(load("tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n")
        .tls().protocols()).as("TLS12 to TLS13 by default").containsExactly("TLSv1.2", "TLSv1.3");
    // Inline PEM, as the format's cert and key fields.
    String inline = "tls_server_config:\n  cert: |\n"
        + Files.readString(cert.certFile()).indent(4) + "  key: |\n"
        + Files.readString(cert.keyFile()).indent(4);
    assertThat(load(inline).tls().certChainPem()).isNotEmpty();
  }

  @Test
  void wrongFilesNameTheField() {
    refused("tls_srever_config: {}\n", "tls_srever_config: unknown field");
    refused("rate_limit:\n  interval: 1s\n  burst: 20\n", "rate_limit is not supported");
    refused("basic_auth_users:\n  alice: secret\n", "basic_auth_users.alice", "bcrypt");
    refused("basic_auth_users:\n  alice: '$2y$03$" + hash.substring(7) + "'\n",
        "basic_auth_users.alice");
    refused("basic_auth_users:\n  - alice\n", "basic_auth_users must be a map");
    refused("basic_auth_users:\n  'a:b': " + hash + "\n", "basic_auth_users.a:b", "':'");
    refused("basic_auth_users:\n  alice: " + hash + "\n  alice: " + hash + "\n", "alice");
    refused("tls_server_config:\n  cert_file: server.crt\n", "tls_server_config.key_file: missing");
    refused("tls_server_config:\n  key_file: server.key\n", "tls_server_config.cert_file: missing");
    refused("tls_server_config:\n  cert_file: nowhere.crt\n  key_file: server.key\n",
        "tls_server_config.cert_file: cannot read", "nowhere.crt");
    refused("tls_server_config:\n  cert_file: server.crt\n  key_file: server.crt\n",
        "tls_server_config: cannot load the certificate");
    refused("tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
        + "  client_auth_type: Always\n", "tls_server_config.client_auth_type", "Always",
        "RequireAndVerifyClientCert");
    refused("tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
        + "  client_ca_file: server.crt\n", "tls_server_config.client_ca_file",
        "NoClientCert");
    refused("tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
        + "  min_version: TLS13\n  max_version: TLS12\n", "min_version TLS13 is above");
    refused("tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
        + "  min_version: SSL3\n", "tls_server_config.min_version", "SSL3");
    refused("tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
        + "  cipher_suites: [TLS_AES_128_GCM_SHA256]\n",
        "tls_server_config.cipher_suites is not supported");
    refused("tls_server_config:\n  cert: x\n  cert_file: server.crt\n  key_file: server.key\n",
        "tls_server_config.cert_file: set one of cert and cert_file");
    refused("http_server_config:\n  http2: false\n", "http_server_config.http2");
    refused("http_server_config:\n  headers:\n    X-Powered-By: me\n",
        "http_server_config.headers.X-Powered-By");
    refused("http_server_config:\n  headers:\n    X-Frame-Options: allow\n",
        "http_server_config.headers.X-Frame-Options", "deny");
    refused("tls_server_config: [\n", "cannot read or parse");
  }

  @Test
  void serveReadsTheFlags() throws Exception {
    Main.Serve serve = new Main.Serve();
    new CommandLine(serve).parseArgs();
    ServerConfig defaults = serve.config();
    assertThat(defaults.web().adminApi()).as("admin off by default, as Prometheus").isFalse();
    assertThat(defaults.web().file()).isEqualTo(WebConfigFile.NONE);

    Path file = TestTls.webConfig(dir, "basic_auth_users:\n  alice: " + hash + "\n");
    serve = new Main.Serve();
    new CommandLine(serve).parseArgs("--web.enable-admin-api", "--web.config.file",
        file.toString());
    ServerConfig c = serve.config();
    assertThat(c.web().adminApi()).isTrue();
    assertThat(c.web().file().users()).containsOnlyKeys("alice");

    Path bad = TestTls.webConfig(dir, "basic_auth_users:\n  alice: plain\n");
    Main.Serve badServe = new Main.Serve();
    new CommandLine(badServe).parseArgs("--web.config.file", bad.toString());
    assertThatThrownBy(badServe::config).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--web.config.file").hasMessageContaining("basic_auth_users.alice");
  }
}
