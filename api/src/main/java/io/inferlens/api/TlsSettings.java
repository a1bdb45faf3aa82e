package io.inferlens.api;

import com.fasterxml.jackson.databind.JsonNode;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code tls_server_config} of the web configuration file (exporter-toolkit
 * docs/web-configuration.md and web/tls_config.go): the server's certificate chain and key (PEM;
 * the key PKCS#8, {@code BEGIN PRIVATE KEY}, as {@code openssl req -newkey} writes it), the
 * client-certificate policy and the TLS versions. With it, the port of {@code --listen} serves
 * HTTPS only.
 *
 * <p>{@code client_auth_type} maps Go's {@code tls.ClientAuthType} onto Netty's: {@code
 * NoClientCert} (default) → none; {@code RequestClientCert} → optional, not verified;
 * {@code RequireAnyClientCert} (also {@code RequireClientCert}) → required, not verified;
 * {@code VerifyClientCertIfGiven} → optional, verified; {@code RequireAndVerifyClientCert} →
 * required and verified against {@code client_ca_file} (the JDK's trusted roots without one).
 * As exporter-toolkit, a client CA with {@code NoClientCert} is refused.
 *
 * @param certChainPem the server's certificate chain, PEM bytes
 * @param keyPem the server's private key, PEM bytes
 * @param clientAuthType the {@code client_auth_type} value, one of {@link #CLIENT_AUTH_TYPES}
 * @param clientCaPem the CA certificates client certificates are verified against, PEM, or null
 * @param protocols the JDK names of the TLS versions from {@code min_version} to
 *     {@code max_version} (default TLS12 to TLS13), e.g. {@code [TLSv1.2, TLSv1.3]}
 */
public record TlsSettings(byte[] certChainPem, byte[] keyPem, String clientAuthType,
    byte[] clientCaPem, List<String> protocols) {

  /** Go's client auth policies, in exporter-toolkit's spelling. */
  static final List<String> CLIENT_AUTH_TYPES = List.of("NoClientCert", "RequestClientCert",
      "RequireAnyClientCert", "RequireClientCert", "VerifyClientCertIfGiven",
      "RequireAndVerifyClientCert");

  /** exporter-toolkit's TLS version names, oldest first, and the JDK's. */
  private static final Map<String, String> VERSIONS = Map.of("TLS10", "TLSv1", "TLS11", "TLSv1.1",
      "TLS12", "TLSv1.2", "TLS13", "TLSv1.3");
  private static final List<String> VERSION_ORDER = List.of("TLS10", "TLS11", "TLS12", "TLS13");

  /** Copies the list. */
  public TlsSettings {
    protocols = List.copyOf(protocols);
  }

  /**
   * @param node the {@code tls_server_config} mapping
   * @param dir the directory relative file names are resolved against
   * @return the settings, the certificate and key already loaded and checked
   * @throws IllegalArgumentException naming the field, e.g.
   *     {@code tls_server_config.key_file: cannot read /etc/x.key: ...}
   */
  static TlsSettings parse(JsonNode node, Path dir) {
    String p = "tls_server_config";
    Map<String, JsonNode> f = WebConfigFile.fields(node, p, List.of("cert", "key", "client_ca",
        "cert_file", "key_file", "client_auth_type", "client_ca_file", "min_version",
        "max_version"), List.of("client_allowed_sans", "cipher_suites", "curve_preferences",
        "prefer_server_cipher_suites"));
    byte[] cert = pem(f, "cert", "cert_file", dir, true);
    byte[] key = pem(f, "key", "key_file", dir, true);
    byte[] ca = pem(f, "client_ca", "client_ca_file", dir, false);
    String auth = f.containsKey("client_auth_type")
        ? WebConfigFile.text(f.get("client_auth_type"), p + ".client_auth_type") : "NoClientCert";
    if (auth.isEmpty()) {
      auth = "NoClientCert";
    }
    if (!CLIENT_AUTH_TYPES.contains(auth)) {
      throw new IllegalArgumentException(p + ".client_auth_type: \"" + auth + "\" is not one of "
          + CLIENT_AUTH_TYPES);
    }
    if (ca != null && auth.equals("NoClientCert")) {
      throw new IllegalArgumentException(p + ".client_ca_file: client CAs are configured but "
          + "client_auth_type is NoClientCert (set RequireAndVerifyClientCert)");
    }
    String min = version(f, "min_version", "TLS12");
    String max = version(f, "max_version", "TLS13");
    int from = VERSION_ORDER.indexOf(min);
    int to = VERSION_ORDER.indexOf(max);
    if (from > to) {
      throw new IllegalArgumentException(p + ".min_version " + min + " is above max_version "
          + max);
    }
    List<String> protocols = new ArrayList<>();
    for (String v : VERSION_ORDER.subList(from, to + 1)) {
      protocols.add(VERSIONS.get(v));
    }
    TlsSettings s = new TlsSettings(cert, key, auth, ca, protocols);
    try {
      // Loads chain, key and CAs as the server will: a mismatch or bad PEM fails at start-up.
      io.netty.util.ReferenceCountUtil.release(s.configure(SslContextBuilder.forServer(
          new ByteArrayInputStream(cert), new ByteArrayInputStream(key))).build());
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException(p + ": cannot load the certificate (cert_file) and key"
          + " (key_file, PEM PKCS#8) or client_ca_file: " + e.getMessage(), e);
    }
    return s;
  }

  /**
   * Sets the key pair and the policies on a server whose port is HTTPS.
   *
   * @param sb the builder
   */
  void apply(com.linecorp.armeria.server.ServerBuilder sb) {
    sb.tls(com.linecorp.armeria.common.TlsKeyPair.of(new ByteArrayInputStream(keyPem),
        new ByteArrayInputStream(certChainPem)));
    sb.tlsCustomizer(this::configure);
  }

  /**
   * Applies the client-certificate policy and the TLS versions to a server context builder
   * (Armeria's TLS customizer); the key pair is set by the caller.
   *
   * @param b the builder
   * @return {@code b}
   */
  SslContextBuilder configure(SslContextBuilder b) {
    b.protocols(protocols);
    switch (clientAuthType) {
      case "RequestClientCert":
        b.clientAuth(ClientAuth.OPTIONAL).trustManager(InsecureTrustManagerFactory.INSTANCE);
        break;
      case "RequireAnyClientCert":
      case "RequireClientCert":
        b.clientAuth(ClientAuth.REQUIRE).trustManager(InsecureTrustManagerFactory.INSTANCE);
        break;
      case "VerifyClientCertIfGiven":
        b.clientAuth(ClientAuth.OPTIONAL);
        trustClientCas(b);
        break;
      case "RequireAndVerifyClientCert":
        b.clientAuth(ClientAuth.REQUIRE);
        trustClientCas(b);
        break;
      default:
        b.clientAuth(ClientAuth.NONE);
    }
    return b;
  }

  private void trustClientCas(SslContextBuilder b) {
    if (clientCaPem != null) {
      b.trustManager(new ByteArrayInputStream(clientCaPem));
    }
  }

  private static String version(Map<String, JsonNode> f, String name, String dflt) {
    if (!f.containsKey(name)) {
      return dflt;
    }
    String v = WebConfigFile.text(f.get(name), "tls_server_config." + name);
    if (!VERSIONS.containsKey(v)) {
      throw new IllegalArgumentException("tls_server_config." + name + ": \"" + v
          + "\" is not one of " + VERSION_ORDER);
    }
    return v;
  }

  /**
   * @return the PEM of the inline field or the file field (exactly one), or null when neither
   *     is set and it is not required
   */
  private static byte[] pem(Map<String, JsonNode> f, String inline, String file, Path dir,
      boolean required) {
    String p = "tls_server_config.";
    boolean hasInline = f.containsKey(inline) && !f.get(inline).isNull()
        && !WebConfigFile.text(f.get(inline), p + inline).isEmpty();
    boolean hasFile = f.containsKey(file) && !f.get(file).isNull()
        && !WebConfigFile.text(f.get(file), p + file).isEmpty();
    if (hasInline && hasFile) {
      throw new IllegalArgumentException(p + file + ": set one of " + inline + " and " + file
          + ", not both");
    }
    if (hasInline) {
      return f.get(inline).asText().getBytes(StandardCharsets.UTF_8);
    }
    if (!hasFile) {
      if (required) {
        throw new IllegalArgumentException(p + file + ": missing (one of " + inline + " or "
            + file + " is required)");
      }
      return null;
    }
    Path path = dir.resolve(f.get(file).asText());
    try {
      return Files.readAllBytes(path);
    } catch (IOException e) {
      throw new IllegalArgumentException(p + file + ": cannot read " + path + ": " + e, e);
    }
  }
}
