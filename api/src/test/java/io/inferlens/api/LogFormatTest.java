package io.inferlens.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A started and stopped {@code serve} writes one format, one line per event: slf4j-simple's,
 * with java.util.logging / System.Logger (the store's "opened" line) bridged into it, the
 * listening line once and a line on shutdown.
 */
class LogFormatTest {

  /** slf4j-simple per simplelogger.properties: date, [thread], level, logger - message. */
  private static final Pattern LINE = Pattern.compile(
      "\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}[+-]\\d{4} \\[[^\\]]+\\] "
          + "(TRACE|DEBUG|INFO|WARN|ERROR) [\\w.$]+ - .*");

  @TempDir Path dir;

  @Test
  void startedAndStoppedServerLogsOneLinePerEventInOneFormat() throws Exception {
    int port = ExternalProcesses.freePort();
    Path log = dir.resolve("serve.log");
    Process p = ExternalProcesses.startInferLens(port, dir.resolve("data"), log,
        "--eval-interval=0s");
    try {
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (System.nanoTime() < deadline
          && !(Files.exists(log) && Files.readString(log).contains("listening"))) {
        assertThat(p.isAlive()).as("serve exited early: %s", Files.exists(log)
            ? Files.readString(log) : "").isTrue();
        Thread.sleep(100);
      }
      assertThat(Requests.get(java.net.URI.create("http://127.0.0.1:" + port + "/-/ready"))
          .statusCode()).isEqualTo(200);
    } finally {
      ExternalProcesses.stop(p);
    }
    List<String> lines = Files.readAllLines(log).stream().filter(l -> !l.isBlank()).toList();
    String all = String.join("\n", lines);
    assertThat(lines).as(all).allSatisfy(l -> assertThat(l).matches(LINE));
    assertThat(lines).as(all).noneMatch(l -> l.startsWith("INFO:") || l.startsWith("WARNING:"));
    assertThat(lines.stream().filter(l -> l.contains("listening on port " + port))).hasSize(1);
    assertThat(lines.stream().filter(l -> l.contains("opened in"))).as(all).hasSize(1);
    assertThat(lines.get(lines.size() - 1)).contains("InferLens stopped after");
  }
}
