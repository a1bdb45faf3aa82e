package io.inferlens.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher {@code src/main/dist/inferlens}, which the build puts beside {@code inferlens.jar}
 * and the README runs: laid out as the build lays it out, with a stand-in jar
 * ({@link LauncherProbe}), it must exec the JVM in its own process (so the PID a supervisor or
 * the benchmark sees is the JVM's), pass the measured JVM options and malloc settings, let the
 * caller's options and environment win, and pass the arguments through untouched.
 */
class LauncherTest {

  @TempDir Path dir;

  private Path layOut() throws IOException {
    if (Files.exists(dir.resolve("inferlens"))) {
      return dir.resolve("inferlens");
    }
    Files.copy(Path.of("src/main/dist/inferlens"), dir.resolve("inferlens"),
        StandardCopyOption.COPY_ATTRIBUTES);
    Files.copy(Path.of("jit-directives.json"), dir.resolve("jit-directives.json"));
    Files.copy(Path.of("jit-commands.txt"), dir.resolve("jit-commands.txt"));
    Manifest mf = new Manifest();
    mf.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    mf.getMainAttributes().put(Attributes.Name.MAIN_CLASS, LauncherProbe.class.getName());
    String entry = LauncherProbe.class.getName().replace('.', '/') + ".class";
    try (OutputStream out = Files.newOutputStream(dir.resolve("inferlens.jar"));
        JarOutputStream jar = new JarOutputStream(out, mf);
        InputStream cls = LauncherProbe.class.getResourceAsStream("/" + entry)) {
      jar.putNextEntry(new JarEntry(entry));
      cls.transferTo(jar);
      jar.closeEntry();
    }
    return dir.resolve("inferlens");
  }

  private record Run(long pid, List<String> lines, String text) {}

  private Run run(Map<String, String> env, String... args) throws Exception {
    return run(true, env, args);
  }

  /** Runs the launcher; stdout only, stderr discarded, unless {@code withStderr}. */
  private Run run(boolean withStderr, Map<String, String> env, String... args) throws Exception {
    Path launcher = layOut();
    List<String> cmd = new java.util.ArrayList<>(List.of("bash", launcher.toString()));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    if (withStderr) {
      pb.redirectErrorStream(true);
    } else {
      pb.redirectError(ProcessBuilder.Redirect.DISCARD);
    }
    pb.environment().remove("MALLOC_ARENA_MAX");
    pb.environment().remove("MALLOC_MMAP_THRESHOLD_");
    pb.environment().remove("INFERLENS_JAVA_OPTS");
    pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
    pb.environment().putAll(env);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    return new Run(p.pid(), out.lines().toList(), out);
  }

  @Test
  void execsTheJvmInItsOwnProcessWithTheMeasuredOptions() throws Exception {
    Run r = run(Map.of(), "serve", "--data-dir", "a dir with spaces");
    assertThat(r.lines()).contains("pid=" + r.pid());
    assertThat(r.lines()).contains("jvm=-XX:+UseSerialGC", "jvm=-Xms64m", "jvm=-Xmn32m",
        "jvm=-XX:MinHeapFreeRatio=20", "jvm=-XX:MaxHeapFreeRatio=40",
        "jvm=-XX:MaxInlineLevel=4", "jvm=-XX:-UseProfiledLoopPredicate",
        "jvm=-XX:Tier4BackEdgeThreshold=400000",
        "jvm=-XX:CompilerDirectivesFile=" + dir.resolve("jit-directives.json"),
        "jvm=-XX:CompileCommandFile=" + dir.resolve("jit-commands.txt"));
    assertThat(r.lines()).contains("env=MALLOC_ARENA_MAX=2",
        "env=MALLOC_MMAP_THRESHOLD_=131072");
    assertThat(r.lines()).containsSubsequence("arg=serve", "arg=--data-dir",
        "arg=a dir with spaces");
    assertThat(r.text()).doesNotContain("Unrecognized", "Error", "Syntax error");
  }

  /**
   * {@code inferlens rules export > rules.yml}: stdout carries only the command's output. The
   * JVM prints "1 compiler directives added" when it reads the directives file; that must not be
   * on stdout for {@code serve} (which gets the file), and the other commands do not get it.
   */
  @Test
  void stdoutIsTheCommandsOutputOnly() throws Exception {
    Run serve = run(false, Map.of(), "serve", "--data-dir", "d");
    assertThat(serve.lines()).contains(
        "jvm=-XX:CompilerDirectivesFile=" + dir.resolve("jit-directives.json"));
    assertThat(serve.lines()).allMatch(l -> l.matches("(pid|jvm|env|arg)=.*"));

    Run export = run(false, Map.of(), "rules", "export", "--url", "http://127.0.0.1:9201");
    assertThat(export.lines().get(0)).startsWith("pid=");
    assertThat(export.lines()).allMatch(l -> l.matches("(pid|jvm|env|arg)=.*"));
    assertThat(export.lines()).noneMatch(l -> l.contains("CompilerDirectivesFile")
        || l.contains("CompileCommandFile"));
    assertThat(export.lines()).contains("jvm=-XX:+DisplayVMOutputToStderr", "jvm=-Xmn32m");
  }

  @Test
  void theCallersOptionsAndEnvironmentWin() throws Exception {
    Run r = run(Map.of("INFERLENS_JAVA_OPTS", "-Xmx1g -Xmn64m",
        "MALLOC_ARENA_MAX", "4"), "--version");
    List<String> jvm = r.lines().stream().filter(l -> l.startsWith("jvm=")).toList();
    // Later options win in HotSpot: the caller's come after the launcher's.
    assertThat(jvm).containsSubsequence("jvm=-Xmn32m", "jvm=-Xmx1g", "jvm=-Xmn64m");
    assertThat(r.lines()).contains("env=MALLOC_ARENA_MAX=4", "arg=--version");
  }
}
