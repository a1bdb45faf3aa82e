package io.inferlens.api;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The file of {@code --web.config.file}, in Prometheus's web configuration format (exporter-toolkit
 * docs/web-configuration.md, the same file Prometheus, Alertmanager and the exporters read):
 *
 * <pre>
 * tls_server_config:            # optional; see {@link TlsSettings}
 *   cert_file: server.crt       # or cert: inline PEM
 *   key_file: server.key        # or key: inline PEM
 *   client_auth_type: RequireAndVerifyClientCert
 *   client_ca_file: ca.crt      # or client_ca: inline PEM
 *   min_version: TLS12
 *   max_version: TLS13
 * http_server_config:
 *   headers: {X-Frame-Options: deny, ...}
 * basic_auth_users:             # user: bcrypt hash ($2y$10$...); empty: no authentication
 *   alice: $2y$10$...
 * </pre>
 *
 * <p>Unlike Prometheus, which re-reads the file on every request, InferLens reads it once at
 * start-up: a change needs a restart. Parsing is strict as exporter-toolkit's
 * ({@code yaml.UnmarshalStrict}): an unknown or duplicate key fails. Fields of the format that
 * InferLens does not implement ({@code rate_limit}, {@code cipher_suites},
 * {@code curve_preferences}, {@code prefer_server_cipher_suites}, {@code client_allowed_sans},
 * {@code http2: false}) fail too, naming the field, rather than being ignored: a security setting
 * silently dropped is worse than a refusal. Relative file names are resolved against the
 * directory of the configuration file, as exporter-toolkit does.
 *
 * @param tls the TLS settings, or null to serve plain HTTP
 * @param users user name → bcrypt hash; empty when basic authentication is off
 * @param headers response headers added to every answer ({@code http_server_config.headers}),
 *     only the names and values exporter-toolkit allows
 */
public record WebConfigFile(TlsSettings tls, Map<String, String> users,
    Map<String, String> headers) {

  /** No file: plain HTTP, no authentication, no extra headers. */
  public static final WebConfigFile NONE = new WebConfigFile(null, Map.of(), Map.of());

  /**
   * A bcrypt hash as Go's {@code bcrypt.Cost} accepts it: version {@code 2a}, {@code 2b} or
   * {@code 2y}, a two-digit cost of 4..31, 22 characters of salt and 31 of hash.
   */
  private static final Pattern BCRYPT =
      Pattern.compile("\\$2[aby]\\$(0[4-9]|[12][0-9]|3[01])\\$[./A-Za-z0-9]{53}");

  /**
   * Headers {@code http_server_config.headers} may set, with the values allowed (empty: any),
   * exporter-toolkit web/handler.go {@code extraHTTPHeaders}.
   */
  private static final Map<String, List<String>> ALLOWED_HEADERS = Map.of(
      "Strict-Transport-Security", List.of(),
      "X-Content-Type-Options", List.of("nosniff"),
      "X-Frame-Options", List.of("deny", "sameorigin"),
      "X-XSS-Protection", List.of(),
      "Content-Security-Policy", List.of());

  /** Copies the maps, so the record stays immutable. */
  public WebConfigFile {
    users = Map.copyOf(users);
    headers = Map.copyOf(headers);
  }

  /** @return whether requests need basic authentication */
  public boolean basicAuth() {
    return !users.isEmpty();
  }

  /**
   * Reads and validates the file, TLS certificate and key included (they are loaded once here,
   * so a wrong path or a key that does not match fails now, not at the first connection).
   *
   * @param file the YAML file
   * @return the settings
   * @throws IllegalArgumentException naming the file and the offending field, e.g.
   *     {@code --web.config.file web.yml: basic_auth_users.alice: not a bcrypt hash ...}
   */
  public static WebConfigFile load(Path file) {
    String where = "--web.config.file " + file + ": ";
    JsonNode root;
    try {
      ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
      yaml.enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
      yaml.enable(com.fasterxml.jackson.databind.DeserializationFeature
          .FAIL_ON_READING_DUP_TREE_KEY);
      root = yaml.readTree(Files.readAllBytes(file));
    } catch (IOException e) {
      throw new IllegalArgumentException(where + "cannot read or parse it: " + e.getMessage(), e);
    }
    try {
      return parse(root, file.toAbsolutePath().getParent());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(where + e.getMessage(), e);
    }
  }

  /**
   * @param root the parsed YAML document (null or missing: an empty file, no settings)
   * @param dir the directory relative file names are resolved against
   * @return the settings
   * @throws IllegalArgumentException naming the offending field, without the file name
   */
  static WebConfigFile parse(JsonNode root, Path dir) {
    if (root == null || root.isMissingNode() || root.isNull()) {
      return NONE;
    }
    Map<String, JsonNode> top = fields(root, "the document", List.of("tls_server_config",
        "http_server_config", "basic_auth_users"), List.of("rate_limit"));
    TlsSettings tls = top.containsKey("tls_server_config")
        ? TlsSettings.parse(top.get("tls_server_config"), dir) : null;
    Map<String, String> users = top.containsKey("basic_auth_users")
        ? users(top.get("basic_auth_users")) : Map.of();
    Map<String, String> headers = top.containsKey("http_server_config")
        ? headers(top.get("http_server_config")) : Map.of();
    return new WebConfigFile(tls, users, headers);
  }

  private static Map<String, String> users(JsonNode node) {
    Map<String, String> out = new LinkedHashMap<>();
    if (node.isNull()) {
      return out;
    }
    if (!node.isObject()) {
      throw new IllegalArgumentException("basic_auth_users must be a map of user name to bcrypt"
          + " hash, not " + node.getNodeType());
    }
    for (Map.Entry<String, JsonNode> e : node.properties()) {
      String user = e.getKey();
      String field = "basic_auth_users." + user;
      if (user.isEmpty() || user.indexOf(':') >= 0) {
        // RFC 7617: the user-id of basic authentication cannot hold a colon.
        throw new IllegalArgumentException(field + ": a user name must be non-empty and hold no"
            + " ':'");
      }
      String hash = e.getValue().isTextual() ? e.getValue().asText() : null;
      if (hash == null || !BCRYPT.matcher(hash).matches()) {
        throw new IllegalArgumentException(field + ": not a bcrypt hash (expected $2a$, $2b$ or"
            + " $2y$, a cost of 04 to 31 and 53 characters of salt and hash, as `htpasswd -nBC 10"
            + " \"\" | tr -d ':\\n'` prints)");
      }
      out.put(user, hash);
    }
    return out;
  }

  private static Map<String, String> headers(JsonNode node) {
    Map<String, JsonNode> http = fields(node, "http_server_config", List.of("http2", "headers"),
        List.of());
    JsonNode http2 = http.get("http2");
    if (http2 != null && !(http2.isBoolean() && http2.asBoolean())) {
      throw new IllegalArgumentException("http_server_config.http2: only true is supported by"
          + " InferLens (HTTP/2 is negotiated over TLS and cannot be turned off)");
    }
    Map<String, String> out = new LinkedHashMap<>();
    JsonNode h = http.get("headers");
    if (h == null || h.isNull()) {
      return out;
    }
    if (!h.isObject()) {
      throw new IllegalArgumentException("http_server_config.headers must be a map, not "
          + h.getNodeType());
    }
    for (Map.Entry<String, JsonNode> e : h.properties()) {
      String field = "http_server_config.headers." + e.getKey();
      List<String> allowed = ALLOWED_HEADERS.get(e.getKey());
      if (allowed == null) {
        throw new IllegalArgumentException(field + ": this header can not be configured (allowed: "
            + new java.util.TreeSet<>(ALLOWED_HEADERS.keySet()) + ")");
      }
      String value = text(e.getValue(), field);
      if (!allowed.isEmpty() && !allowed.contains(value)) {
        throw new IllegalArgumentException(field + ": \"" + value + "\" is not one of "
            + allowed);
      }
      if (!value.isEmpty()) {
        out.put(e.getKey(), value);
      }
    }
    return out;
  }

  /**
   * @param node a YAML mapping
   * @param what its name in messages
   * @param known the keys InferLens reads
   * @param unsupported keys of Prometheus's format that InferLens refuses
   * @return its entries, in file order
   * @throws IllegalArgumentException if it is not a mapping or holds another key
   */
  static Map<String, JsonNode> fields(JsonNode node, String what, List<String> known,
      List<String> unsupported) {
    Map<String, JsonNode> out = new LinkedHashMap<>();
    if (node.isNull()) {
      return out;
    }
    if (!node.isObject()) {
      throw new IllegalArgumentException(what + " must be a map, not " + node.getNodeType());
    }
    String prefix = what.equals("the document") ? "" : what + ".";
    for (Map.Entry<String, JsonNode> e : node.properties()) {
      if (unsupported.contains(e.getKey())) {
        throw new IllegalArgumentException(prefix + e.getKey() + " is not supported by InferLens;"
            + " remove it");
      }
      if (!known.contains(e.getKey())) {
        throw new IllegalArgumentException(prefix + e.getKey() + ": unknown field (known: "
            + String.join(", ", known) + ")");
      }
      out.put(e.getKey(), e.getValue());
    }
    return out;
  }

  /**
   * @param node a scalar
   * @param field its path, for the message
   * @return its text
   * @throws IllegalArgumentException if it is not a string
   */
  static String text(JsonNode node, String field) {
    if (node == null || !node.isTextual()) {
      throw new IllegalArgumentException(field + " must be a string");
    }
    return node.asText();
  }
}
