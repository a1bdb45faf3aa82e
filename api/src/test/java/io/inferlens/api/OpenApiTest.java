package io.inferlens.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** openapi.yaml against the routes a started server registers, in both directions. */
class OpenApiTest {

  @TempDir Path dir;

  private static JsonNode spec() throws Exception {
    try (InputStream in = OpenApiTest.class.getResourceAsStream("openapi.yaml")) {
      assertThat(in).as("io/inferlens/api/openapi.yaml on the class path").isNotNull();
      return new ObjectMapper(new YAMLFactory()).readTree(in);
    }
  }

  @Test
  void everyRegisteredRouteIsDocumentedAndEveryDocumentedRouteRegistered() throws Exception {
    JsonNode spec = spec();
    assertThat(spec.get("openapi").asText()).startsWith("3.");
    Set<String> documented = new TreeSet<>();
    spec.get("paths").properties().forEach(e -> documented.add(e.getKey()));
    InferLensServer server = InferLensServer.start(ServerConfig.forTests(dir.resolve("data")),
        Clock.systemUTC());
    try {
      Set<String> registered = new TreeSet<>();
      for (String r : server.routes()) {
        if (r.endsWith("/*")) {
          continue; // the UI's static files and WebJars under / and /webjars/
        }
        registered.add(r.replaceAll(":([A-Za-z_]+)", "{$1}"));
      }
      assertThat(documented).containsExactlyInAnyOrderElementsOf(registered);
      HttpResponse<String> served = Requests.get(
          URI.create("http://127.0.0.1:" + server.port() + "/api/v1/openapi.yaml"));
      assertThat(served.statusCode()).isEqualTo(200);
      assertThat(served.body()).contains("openapi: 3.").contains("/api/v1/dashboard");
    } finally {
      server.close();
    }
  }

  @Test
  void everyOperationHasResponsesAndJsonRoutesDocumentTheErrorEnvelope() throws Exception {
    JsonNode spec = spec();
    JsonNode error = spec.at("/components/schemas/Error/properties/errorType/enum");
    Set<String> types = new TreeSet<>();
    error.forEach(t -> types.add(t.asText()));
    for (ErrorMapping.Kind k : ErrorMapping.Kind.values()) {
      assertThat(types).contains(ErrorMapping.errorType(k));
    }
    for (Map.Entry<String, JsonNode> path : spec.get("paths").properties()) {
      for (Map.Entry<String, JsonNode> op : path.getValue().properties()) {
        JsonNode responses = op.getValue().get("responses");
        assertThat(responses).as("%s %s responses", op.getKey(), path.getKey()).isNotNull();
        assertThat(op.getValue().get("summary")).as("%s %s summary", op.getKey(), path.getKey())
            .isNotNull();
        if (path.getKey().startsWith("/api/v1/") && !path.getKey().equals("/api/v1/write")
            && !path.getKey().equals("/api/v1/read")
            && !path.getKey().equals("/api/v1/openapi.yaml")) {
          assertThat(responses.get("405").toString()).as(path.getKey())
              .contains("#/components/responses/Error");
        }
        if (path.getKey().contains("{")) {
          assertThat(op.getValue().get("parameters").toString()).contains("\"in\":\"path\"");
        }
      }
    }
  }
}
