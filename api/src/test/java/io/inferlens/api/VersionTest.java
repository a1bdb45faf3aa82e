package io.inferlens.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code --version} at the top level and on {@code serve}: prints the pom version, exits 0. */
class VersionTest {

  private static String run(int[] rc, String... args) {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    CommandLine cl = new CommandLine(new Main());
    cl.setOut(new PrintWriter(buf, true, StandardCharsets.UTF_8));
    rc[0] = cl.execute(args);
    return buf.toString(StandardCharsets.UTF_8);
  }

  @Test
  void topLevelAndServeVersionPrintThePomVersionAndExit0() {
    String pomVersion = VersionProvider.version();
    assertThat(pomVersion).matches("\\d+\\.\\d+\\.\\d+(-SNAPSHOT)?");
    for (String[] args : new String[][] {{"--version"}, {"serve", "--version"}, {"-V"}}) {
      int[] rc = {-1};
      String out = run(rc, args);
      assertThat(rc[0]).as(String.join(" ", args)).isZero();
      assertThat(out.strip()).as(String.join(" ", args)).isEqualTo("InferLens " + pomVersion);
    }
  }
}
