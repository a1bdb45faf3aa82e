package io.inferlens.api;

import com.linecorp.armeria.common.HttpHeaderNames;
import com.linecorp.armeria.common.HttpRequest;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.common.MediaType;
import com.linecorp.armeria.common.ResponseHeaders;
import com.linecorp.armeria.server.DecoratingHttpServiceFunction;
import com.linecorp.armeria.server.HttpService;
import com.linecorp.armeria.server.ServiceRequestContext;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.bouncycastle.crypto.generators.OpenBSDBCrypt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * HTTP basic authentication (RFC 7617) in front of every route, against the bcrypt hashes of
 * {@code basic_auth_users} in the web configuration file, as exporter-toolkit does for
 * Prometheus (web/authentication/basicauth): a request without credentials, or with a user or
 * password that does not match, gets 401 {@code Unauthorized} with
 * {@code WWW-Authenticate: Basic realm="InferLens", charset="UTF-8"} (so a browser asks for them);
 * a matching one goes on to the route. Prometheus puts every path behind it, {@code /-/healthy}
 * and {@code /-/ready} included, and so does InferLens.
 *
 * <p>Cost: bcrypt is slow by design (about 70 ms at cost 10), so a successful check is cached,
 * keyed by the SHA-256 of user and password (the password itself is not kept). Only
 * successes are cached, so wrong guesses cannot evict the right ones; at most
 * {@value #CACHE_MAX} entries (bcrypt reads only a password's first 72 bytes, so one user can
 * have many matching passwords), then the cache starts over. Uncached checks run one at a time
 * (as exporter-toolkit's {@code bcryptMtx}: a flood of guesses costs one core, not all) on
 * Armeria's blocking executor, never on the event loop. An unknown user is checked against a
 * hash of a random password at the users' cost, so answers take as long as for a known user
 * (exporter-toolkit's defence against user enumeration by timing). Thread safe.
 */
final class BasicAuth implements DecoratingHttpServiceFunction {

  private static final Logger log = LoggerFactory.getLogger(BasicAuth.class);

  /** Most cached successful checks before the cache is cleared. */
  static final int CACHE_MAX = 1024;

  private final Map<String, String> users;
  private final String decoyHash;
  private final Set<String> verified = ConcurrentHashMap.newKeySet();
  private final Object bcryptLock = new Object();

  /**
   * @param users user name → bcrypt hash ({@code $2a$}, {@code $2b$} or {@code $2y$}), not empty
   * @throws IllegalArgumentException if {@code users} is empty
   */
  BasicAuth(Map<String, String> users) {
    if (users.isEmpty()) {
      throw new IllegalArgumentException("basic authentication needs at least one user");
    }
    this.users = Map.copyOf(users);
    int cost = Integer.parseInt(users.values().iterator().next().substring(4, 6));
    byte[] salt = new byte[16];
    SecureRandom random = new SecureRandom();
    random.nextBytes(salt);
    byte[] password = new byte[18];
    random.nextBytes(password);
    this.decoyHash = OpenBSDBCrypt.generate("2y",
        Base64.getEncoder().encodeToString(password).toCharArray(), salt, cost);
  }

  @Override
  public HttpResponse serve(HttpService delegate, ServiceRequestContext ctx, HttpRequest req)
      throws Exception {
    String[] credentials = credentials(req.headers().get(HttpHeaderNames.AUTHORIZATION));
    if (credentials == null) {
      log.debug("unauthenticated request to {}: no basic credentials", ctx.path());
      return unauthorized();
    }
    String key = cacheKey(credentials[0], credentials[1]);
    if (verified.contains(key)) {
      return delegate.serve(ctx, req);
    }
    CompletableFuture<HttpResponse> answer = CompletableFuture
        .supplyAsync(() -> check(credentials[0], credentials[1], key), ctx.blockingTaskExecutor())
        .thenApplyAsync(ok -> {
          if (!ok) {
            log.debug("unauthenticated request to {}: wrong user or password", ctx.path());
            return unauthorized();
          }
          try {
            return delegate.serve(ctx, req);
          } catch (Exception e) {
            return HttpResponse.ofFailure(e);
          }
        }, ctx.eventLoop());
    return HttpResponse.of(answer);
  }

  /** bcrypt, one at a time; a success is cached. */
  private boolean check(String user, String password, String key) {
    String hash = users.get(user);
    boolean ok;
    synchronized (bcryptLock) {
      try {
        ok = OpenBSDBCrypt.checkPassword(hash == null ? decoyHash : hash, password.toCharArray());
      } catch (IllegalArgumentException e) {
        ok = false; // a password bcrypt cannot take
      }
    }
    ok = ok && hash != null;
    if (ok) {
      if (verified.size() >= CACHE_MAX) {
        verified.clear();
      }
      verified.add(key);
    }
    return ok;
  }

  /** @return 401 with the challenge that makes a browser ask for credentials */
  static HttpResponse unauthorized() {
    return HttpResponse.of(ResponseHeaders.builder(HttpStatus.UNAUTHORIZED)
        .set(HttpHeaderNames.WWW_AUTHENTICATE, "Basic realm=\"InferLens\", charset=\"UTF-8\"")
        .contentType(MediaType.PLAIN_TEXT_UTF_8).build(),
        com.linecorp.armeria.common.HttpData.ofUtf8("Unauthorized\n"));
  }

  /**
   * @param authorization the {@code Authorization} header, or null
   * @return {user, password} of a {@code Basic} header (scheme case-insensitive, credentials
   *     base64 of UTF-8 {@code user:password}, split at the first colon, RFC 7617), else null
   */
  static String[] credentials(String authorization) {
    if (authorization == null || authorization.length() < 6
        || !authorization.regionMatches(true, 0, "Basic ", 0, 6)) {
      return null;
    }
    byte[] decoded;
    try {
      decoded = Base64.getDecoder().decode(authorization.substring(6).trim());
    } catch (IllegalArgumentException e) {
      return null;
    }
    String pair = new String(decoded, StandardCharsets.UTF_8);
    int colon = pair.indexOf(':');
    if (colon < 0) {
      return null;
    }
    return new String[] {pair.substring(0, colon), pair.substring(colon + 1)};
  }

  /** @return hex SHA-256 of the user's UTF-8 length (4 bytes), user and password, UTF-8 */
  private static String cacheKey(String user, String password) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      byte[] u = user.getBytes(StandardCharsets.UTF_8);
      // The length first, so no other split of the same bytes gives the same key.
      sha.update(java.nio.ByteBuffer.allocate(4).putInt(u.length).array());
      sha.update(u);
      sha.update(password.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(sha.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK always has SHA-256", e);
    }
  }
}
