package io.inferlens.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Overload with the README's run command: the launcher {@code src/main/dist/inferlens} (its JVM
 * and malloc options) runs the server, as a user runs it, while {@link OverloadLoad} pushes 24
 * senders of 250,000-sample requests at it for 30 s, several times what it can store. The
 * server must answer what it cannot take with 503 and {@code Retry-After} (the in-flight bound,
 * {@code --max-inflight-write-bytes}) instead of queueing it, so that its peak RSS stays under the
 * 1 GiB the README documents, every request is answered before the sender's 30 s timeout, and
 * every acknowledged sample is stored. Before the bound, the same load queued every request:
 * answers took up to the 30 s timeout, the senders resent what timed out while the server still
 * held it, and no 503 came.
 */
class OverloadTest {

  /** The peak RSS the README documents for its run command under any overload, bytes. */
  static final long RSS_CEILING_BYTES = 1L << 30;

  @TempDir Path dir;

  @Test
  void overloadIsRefusedWith503UnderTheRssCeilingAndNoAcknowledgedSampleIsLost()
      throws Exception {
    int port = ExternalProcesses.freePort();
    Path log = dir.resolve("inferlens.log");
    Process p = startWithLauncher(port, dir.resolve("data"), log);
    URI base = URI.create("http://127.0.0.1:" + port);
    try {
      ExternalProcesses.awaitOk(base.resolve("/-/ready"), p, Duration.ofSeconds(60), log);
      OverloadLoad.Result r = OverloadLoad.run(base, p.pid(), 24, 250_000,
          Duration.ofSeconds(30));
      System.out.println("overload: " + r);
      assertThat(p.isAlive()).as(ExternalProcesses.tail(log)).isTrue();
      assertThat(r.hwmBytes()).as(r.toString()).isPositive().isLessThan(RSS_CEILING_BYTES);
      assertThat(r.statuses()).as(r + "; first error: " + OverloadLoad.FIRST_ERROR.get())
          .containsKey(503).doesNotContainKey(-1).doesNotContainKey(500);
      assertThat(OverloadLoad.FIRST_ERROR.get()).contains("--max-inflight-write-bytes");
      assertThat(r.droppedSamples()).isZero();
      assertThat(r.ackedSamples()).isEqualTo(r.sentSamples());
      // Every acknowledged sample is stored: count them at the newest timestamp sent.
      String q = "sum(count_over_time({__name__=~\"overload_load_.*\"}[6h]))";
      var answer = Requests.get(base.resolve("/api/v1/query?query=" + Requests.enc(q)
          + "&time=" + (r.lastMs() / 1000.0)));
      assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
      JsonNode result = new ObjectMapper().readTree(answer.body()).path("data").path("result");
      assertThat(result.get(0).path("value").get(1).asLong()).as(answer.body())
          .isEqualTo(r.ackedSamples());
    } finally {
      ExternalProcesses.stop(p);
    }
  }

  /**
   * Starts {@code inferlens serve} through the launcher as the build lays it out, with an
   * {@code inferlens.jar} whose manifest names this JVM's class path (the modules' classes and
   * their dependencies), so the server runs with exactly the README's JVM options.
   */
  private Process startWithLauncher(int port, Path dataDir, Path log) throws IOException {
    Path launcher = dir.resolve("inferlens");
    Files.copy(Path.of("src/main/dist/inferlens"), launcher,
        StandardCopyOption.COPY_ATTRIBUTES);
    Files.copy(Path.of("jit-directives.json"), dir.resolve("jit-directives.json"));
    Files.copy(Path.of("jit-commands.txt"), dir.resolve("jit-commands.txt"));
    Manifest mf = new Manifest();
    mf.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    mf.getMainAttributes().put(Attributes.Name.MAIN_CLASS, Main.class.getName());
    List<String> urls = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      urls.add(Path.of(entry).toUri().toString());
    }
    mf.getMainAttributes().put(Attributes.Name.CLASS_PATH, String.join(" ", urls));
    try (OutputStream out = Files.newOutputStream(dir.resolve("inferlens.jar"));
        JarOutputStream jar = new JarOutputStream(out, mf)) {
      jar.flush();
    }
    ProcessBuilder pb = new ProcessBuilder("bash", launcher.toString(), "serve", "--listen",
        "127.0.0.1:" + port, "--data-dir", dataDir.toString());
    pb.environment().remove("INFERLENS_JAVA_OPTS");
    pb.environment().remove("MALLOC_ARENA_MAX");
    pb.environment().remove("MALLOC_MMAP_THRESHOLD_");
    pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
    return pb.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(
        log.toFile())).start();
  }
}
