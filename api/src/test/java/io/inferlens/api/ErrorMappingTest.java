package io.inferlens.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.inferlens.ingest.IngestException;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** One mapping of error kinds to statuses, for every route including unknown paths. */
class ErrorMappingTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir static Path dir;
  static InferLensServer server;
  static URI base;

  @BeforeAll
  static void start() throws Exception {
    server = InferLensServer.start(ServerConfig.forTests(dir.resolve("data")), Clock.systemUTC());
    base = URI.create("http://127.0.0.1:" + server.port());
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  @Test
  void everyKindHasAStatusAndItsOwnErrorType() {
    Set<Integer> statuses = new HashSet<>();
    Set<String> errorTypes = new HashSet<>();
    for (ErrorMapping.Kind k : ErrorMapping.Kind.values()) {
      statuses.add(ErrorMapping.status(k).code());
      assertThat(ErrorMapping.errorType(k)).matches("[a-z_]+");
      errorTypes.add(ErrorMapping.errorType(k));
    }
    assertThat(statuses).containsExactlyInAnyOrder(400, 401, 403, 404, 405, 413, 415, 422, 429,
        500, 503);
    // 400 and 415 share bad_data, as Prometheus; 503 is unavailable, timeout or canceled
    assertThat(errorTypes).hasSize(ErrorMapping.Kind.values().length - 1);
    assertThat(ErrorMapping.errorType(ErrorMapping.Kind.EXECUTION)).isEqualTo("execution");
    assertThat(ErrorMapping.status(ErrorMapping.Kind.EXECUTION).code()).isEqualTo(422);
    assertThat(ErrorMapping.errorType(ErrorMapping.Kind.TIMEOUT)).isEqualTo("timeout");
    assertThat(ErrorMapping.status(ErrorMapping.Kind.NOT_FOUND).code()).isEqualTo(404);
    assertThat(ErrorMapping.status(ErrorMapping.Kind.FORBIDDEN).code()).isEqualTo(403);
    assertThat(ErrorMapping.status(ErrorMapping.Kind.UNAUTHORIZED).code()).isEqualTo(401);
    assertThat(ErrorMapping.errorType(ErrorMapping.Kind.UNAUTHORIZED)).isEqualTo("unauthorized");
    Set<ErrorMapping.Kind> fromIngest = EnumSet.noneOf(ErrorMapping.Kind.class);
    for (IngestException.Kind k : IngestException.Kind.values()) {
      fromIngest.add(ErrorMapping.kind(k));
      assertThat(ErrorMapping.status(k).code()).isBetween(400, 499);
    }
    assertThat(fromIngest).containsExactlyInAnyOrder(ErrorMapping.Kind.BAD_DATA,
        ErrorMapping.Kind.TOO_LARGE, ErrorMapping.Kind.UNSUPPORTED_MEDIA_TYPE,
        ErrorMapping.Kind.TOO_MANY_REQUESTS);
    assertThat(ErrorMapping.status(IngestException.Kind.RATE_LIMITED).code()).isEqualTo(429);
    for (RemoteReadException.Kind k : RemoteReadException.Kind.values()) {
      assertThat(ErrorMapping.status(k).code()).isIn(400, 413);
    }
  }

  @ParameterizedTest(name = "GET {0} -> 404 not_found")
  @CsvSource({"/nope", "/api/v1/nope", "/api/v2/query", "/app.js.map", "/dir/deeper/file.txt"})
  void unknownPathsAnswerTheJson404Envelope(String path) throws Exception {
    HttpResponse<String> r = Requests.get(base.resolve(path));
    assertThat(r.statusCode()).isEqualTo(404);
    assertThat(r.headers().firstValue("content-type").orElse("")).startsWith("application/json");
    JsonNode body = JSON.readTree(r.body());
    assertThat(body.get("status").asText()).isEqualTo("error");
    assertThat(body.get("errorType").asText()).isEqualTo("not_found");
    assertThat(body.get("error").asText()).contains(path);
  }

  @ParameterizedTest(name = "GET {0} -> 200 {1}")
  @CsvSource({"/, text/html", "/app.js, javascript", "/style.css, text/css"})
  void theUiStillServesItsFiles(String path, String type) {
    HttpResponse<String> r = Requests.get(base.resolve(path));
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("content-type").orElse("")).contains(type);
  }

  @Test
  void wrongMethodsAndBadParametersUseTheSameMapping() throws Exception {
    HttpResponse<String> post = Requests.post(base.resolve("/api/v1/targets"), new byte[0],
        "application/json", null);
    assertThat(post.statusCode()).isEqualTo(405);
    assertThat(JSON.readTree(post.body()).get("errorType").asText())
        .isEqualTo("method_not_allowed");
    HttpResponse<String> bad = Requests.get(base.resolve("/api/v1/diagnoses?start=yesterday"));
    assertThat(bad.statusCode()).isEqualTo(400);
    assertThat(JSON.readTree(bad.body()).get("errorType").asText()).isEqualTo("bad_data");
    assertThat(JSON.readTree(bad.body()).get("error").asText()).contains("start");
    HttpResponse<String> write = Requests.get(base.resolve("/api/v1/write"));
    assertThat(write.statusCode()).isEqualTo(405);
    assertThat(write.body()).contains("remote write takes POST");
  }
}
