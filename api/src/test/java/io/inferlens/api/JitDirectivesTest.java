package io.inferlens.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code api/jit-directives.json}, named by the README's heavy-ingest command: HotSpot must accept
 * it (a JVM given a file it cannot parse refuses to start), and it must leave C2 to the
 * per-sample code.
 */
class JitDirectivesTest {

  private static final Path FILE = Path.of("jit-directives.json");

  @Test
  void theJvmOfThisBuildAcceptsTheFileAsTheReadmePassesIt() throws IOException,
      InterruptedException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process p = new ProcessBuilder(java, "-XX:+UnlockDiagnosticVMOptions",
        "-XX:CompilerDirectivesFile=" + FILE.toAbsolutePath(), "-XX:CompileCommand=quiet",
        "-version").redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    assertThat(out).contains("1 compiler directives added").doesNotContain("Syntax error");
  }

  @Test
  void c2StaysOnForTheDecoderTheStoreAndTheJdk() throws IOException {
    String text = Files.readString(FILE);
    assertThat(text).contains("c2: { Exclude: true }", "\"io/netty/*.*\"", "\"com/linecorp/*.*\"");
    // The per-sample code: ours, protobuf's CodedInputStream, snappy, RocksDB's JNI side, the JDK.
    assertThat(text).doesNotContain("\"io/inferlens", "\"com/google", "\"org/xerial",
        "\"org/rocksdb", "\"java/", "\"jdk/", "\"*");
  }
}
