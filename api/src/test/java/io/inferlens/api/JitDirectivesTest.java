package io.inferlens.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code api/jit-directives.json} and {@code api/jit-commands.txt}, named by the README's
 * heavy-ingest command: HotSpot must accept them (a JVM given a directives file it cannot parse
 * refuses to start), they must leave C2 to the per-sample code, and the JVM must start quietly.
 */
class JitDirectivesTest {

  private static final Path FILE = Path.of("jit-directives.json");
  private static final Path COMMANDS = Path.of("jit-commands.txt");

  @Test
  void theJvmOfThisBuildAcceptsTheFileAsTheReadmePassesIt() throws IOException,
      InterruptedException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process p = new ProcessBuilder(java, "-XX:+UnlockDiagnosticVMOptions",
        "-XX:CompilerDirectivesFile=" + FILE.toAbsolutePath(),
        "-XX:CompileCommandFile=" + COMMANDS.toAbsolutePath(),
        "-version").redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    assertThat(out).contains("1 compiler directives added").doesNotContain("Syntax error")
        // quiet: the commands are not echoed, and no method's exclusion is printed
        .doesNotContain("CompileCommand:", "Excluding compile", "Unrecognized", "Error");
  }

  @Test
  void theCommandsScaleOnlyThePackagesKeptFromC2() throws IOException {
    String directives = Files.readString(FILE);
    for (String line : Files.readAllLines(COMMANDS)) {
      if (line.isBlank() || line.startsWith("#") || line.equals("quiet")) {
        continue;
      }
      String[] parts = line.split(",");
      assertThat(parts).as(line).hasSize(3);
      assertThat(parts[0]).isEqualTo("CompileThresholdScaling");
      assertThat(directives).as(line).contains("\"" + parts[1] + "\"");
      assertThat(Double.parseDouble(parts[2])).isBetween(0.01, 1.0);
    }
    assertThat(Files.readAllLines(COMMANDS).stream()
        .filter(l -> !l.isBlank() && !l.startsWith("#")).findFirst()).contains("quiet");
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
