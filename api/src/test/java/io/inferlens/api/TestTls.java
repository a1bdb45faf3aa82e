package io.inferlens.api;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.crypto.generators.OpenBSDBCrypt;

/**
 * Test material for TLS and basic authentication: a self-signed certificate for 127.0.0.1 made by
 * Debian's {@code /usr/bin/openssl} in a temporary directory, a Java HTTP client that trusts only
 * it, bcrypt hashes, and requests with or without an {@code Authorization} header.
 */
final class TestTls {

  static final Path OPENSSL = Path.of("/usr/bin/openssl");

  private TestTls() {}

  /** The PEM files of a self-signed server certificate. */
  record Cert(Path certFile, Path keyFile) {}

  /**
   * @param dir where to write {@code server.crt} and {@code server.key}
   * @return a self-signed RSA certificate, CN and SAN {@code IP:127.0.0.1} (Go's verifier, as
   *     Prometheus's, reads only the SAN), valid two days, its key unencrypted PKCS#8 PEM
   */
  static Cert selfSigned(Path dir) throws Exception {
    ExternalProcesses.requireBinary(OPENSSL, "openssl");
    Path cert = dir.resolve("server.crt");
    Path key = dir.resolve("server.key");
    Path log = dir.resolve("openssl.log");
    Process p = new ProcessBuilder(OPENSSL.toString(), "req", "-x509", "-newkey", "rsa:2048",
        "-nodes", "-keyout", key.toString(), "-out", cert.toString(), "-days", "2",
        "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1")
        .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IllegalStateException("openssl did not finish in 60 s");
    }
    if (p.exitValue() != 0) {
      throw new IllegalStateException("openssl failed: " + Files.readString(log));
    }
    return new Cert(cert, key);
  }

  /** @return an HTTP/1.1 client that trusts only {@code certFile} */
  static HttpClient client(Path certFile) throws Exception {
    KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
    ks.load(null, null);
    try (InputStream in = Files.newInputStream(certFile)) {
      ks.setCertificateEntry("server", CertificateFactory.getInstance("X.509")
          .generateCertificate(in));
    }
    TrustManagerFactory tmf = TrustManagerFactory.getInstance(
        TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(ks);
    SSLContext ssl = SSLContext.getInstance("TLS");
    ssl.init(null, tmf.getTrustManagers(), new SecureRandom());
    return HttpClient.newBuilder().sslContext(ssl).version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(10)).build();
  }

  /** @return a bcrypt hash of {@code password}, {@code $2y$}, cost 10 (htpasswd -B's default) */
  static String bcrypt(String password) {
    byte[] salt = new byte[16];
    new SecureRandom().nextBytes(salt);
    return OpenBSDBCrypt.generate("2y", password.toCharArray(), salt, 10);
  }

  /** @return the value of an {@code Authorization: Basic} header */
  static String basic(String user, String password) {
    return "Basic " + Base64.getEncoder().encodeToString(
        (user + ":" + password).getBytes(StandardCharsets.UTF_8));
  }

  /**
   * @param authorization the {@code Authorization} header, or null for none
   * @param body a POST body, or null for GET
   * @param headers more header name/value pairs
   */
  static HttpResponse<String> send(HttpClient client, URI uri, String authorization, byte[] body,
      String... headers) throws IOException, InterruptedException {
    HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30));
    if (authorization != null) {
      b.header("Authorization", authorization);
    }
    for (int i = 0; i + 1 < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    b.method(body == null ? "GET" : "POST", body == null ? HttpRequest.BodyPublishers.noBody()
        : HttpRequest.BodyPublishers.ofByteArray(body));
    return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** @return the web configuration file {@code web.yml} in {@code dir} with this content */
  static Path webConfig(Path dir, String yaml) throws IOException {
    Path f = dir.resolve("web.yml");
    Files.writeString(f, yaml);
    return f;
  }
}
