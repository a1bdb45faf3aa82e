package io.inferlens.api;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Starting, waiting for and ending real processes (Prometheus, a second InferLens JVM). */
final class ExternalProcesses {

  private ExternalProcesses() {}

  /**
   * Skips the calling test when a Debian binary is missing, with the package to install; under
   * CI (env CI=true) fails instead, since .ci/run must have installed it.
   */
  static void requireBinary(Path binary, String debianPackages) {
    if (!Files.isExecutable(binary)) {
      String install = "apt-get install " + debianPackages;
      if ("true".equals(System.getenv("CI"))) {
        org.junit.jupiter.api.Assertions.fail(binary + " is missing: .ci/run must " + install);
      }
      org.junit.jupiter.api.Assumptions.abort("skipped: " + binary + " not found (" + install
          + ")");
    }
  }

  /** A Prometheus started by {@link #startPrometheus}: its process, base URL and log file. */
  record Prom(Process process, URI base, Path log) {
    /** Waits for {@code /-/ready}, failing with the log's tail if it dies or takes over 60 s. */
    void awaitReady() throws Exception {
      awaitOk(base.resolve("/-/ready"), process, Duration.ofSeconds(60), log);
    }
  }

  /**
   * Starts Debian's {@code /usr/bin/prometheus} on a free loopback port with its data and log
   * under {@code dir}, without waiting for it (so several can start in parallel).
   *
   * @param name prefix of the config, data dir and log files
   * @param configYaml the prometheus.yml content
   * @param extraArgs more flags, e.g. {@code --web.enable-remote-write-receiver}
   */
  static Prom startPrometheus(Path dir, String name, String configYaml, String... extraArgs)
      throws IOException {
    int port = freePort();
    Path config = dir.resolve(name + ".yml");
    Files.writeString(config, configYaml);
    return start(dir, name, port, List.of("/usr/bin/prometheus",
        "--config.file=" + config,
        "--storage.tsdb.path=" + dir.resolve(name + "-data"),
        "--web.listen-address=127.0.0.1:" + port), extraArgs);
  }

  /** Starts {@code cmd} plus {@code extraArgs}, its output to {@code dir/name.log}. */
  private static Prom start(Path dir, String name, int port, List<String> cmd,
      String... extraArgs) throws IOException {
    Path log = dir.resolve(name + ".log");
    List<String> all = new ArrayList<>(cmd);
    all.addAll(List.of(extraArgs));
    Process p = new ProcessBuilder(all).redirectErrorStream(true)
        .redirectOutput(log.toFile()).start();
    return new Prom(p, URI.create("http://127.0.0.1:" + port), log);
  }

  /**
   * An Alertmanager configuration that routes every alert, grouped by all its labels, to one
   * webhook with resolved notifications on, after a 1 s group wait and interval.
   *
   * @param hookPort the webhook's loopback port; it is called at {@code /hook}
   */
  static String webhookAlertmanagerConfig(int hookPort) {
    return "route:\n"
        + "  receiver: hook\n"
        + "  group_by: ['...']\n"
        + "  group_wait: 1s\n"
        + "  group_interval: 1s\n"
        + "  repeat_interval: 4h\n"
        + "receivers:\n"
        + "  - name: hook\n"
        + "    webhook_configs:\n"
        + "      - url: http://127.0.0.1:" + hookPort + "/hook\n"
        + "        send_resolved: true\n";
  }

  /**
   * Starts Debian's {@code /usr/bin/prometheus-alertmanager} on {@code 127.0.0.1:port} with
   * clustering off and its data and log under {@code dir}, without waiting for it.
   *
   * @param name prefix of the config, data dir and log files
   * @param configYaml the alertmanager.yml content
   */
  static Prom startAlertmanager(Path dir, String name, int port, String configYaml)
      throws IOException {
    Path config = dir.resolve(name + ".yml");
    Files.writeString(config, configYaml);
    Path log = dir.resolve(name + ".log");
    List<String> cmd = List.of("/usr/bin/prometheus-alertmanager",
        "--config.file=" + config,
        "--storage.path=" + dir.resolve(name + "-data"),
        "--web.listen-address=127.0.0.1:" + port,
        "--cluster.listen-address=",
        "--log.level=debug");
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    return new Prom(p, URI.create("http://127.0.0.1:" + port), log);
  }

  /**
   * Starts Debian's {@code /usr/bin/vmagent} (package victoria-metrics) on a free loopback port,
   * scraping as {@code promscrapeYaml} says and remote-writing to {@code remoteWriteUrl}, its
   * queue and log under {@code dir}, without waiting for it.
   *
   * @param name prefix of the config, queue dir and log files
   * @param promscrapeYaml the {@code -promscrape.config} content (Prometheus's scrape format)
   * @param remoteWriteUrl where it remote-writes
   * @param extraArgs more flags, e.g. {@code -remoteWrite.headers=X-Scope-OrgID:team-a}
   */
  static Prom startVmagent(Path dir, String name, String promscrapeYaml, String remoteWriteUrl,
      String... extraArgs) throws IOException {
    int port = freePort();
    Path config = dir.resolve(name + ".yml");
    Files.writeString(config, promscrapeYaml);
    return start(dir, name, port, List.of("/usr/bin/vmagent",
        "-promscrape.config=" + config,
        "-remoteWrite.url=" + remoteWriteUrl,
        "-remoteWrite.tmpDataPath=" + dir.resolve(name + "-queue"),
        "-remoteWrite.flushInterval=1s",
        "-httpListenAddr=127.0.0.1:" + port), extraArgs);
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      s.setReuseAddress(true);
      return s.getLocalPort();
    }
  }

  /** Polls {@code url} until it answers 200, the process dies, or the timeout passes. */
  static void awaitOk(URI url, Process p, Duration timeout, Path log) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (p != null && !p.isAlive()) {
        throw new IllegalStateException("process exited with " + p.exitValue() + " before " + url
            + " was ready; its log:\n" + tail(log));
      }
      try {
        HttpResponse<String> r = Requests.get(url);
        if (r.statusCode() == 200) {
          return;
        }
      } catch (RuntimeException e) {
        // not listening yet
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException(url + " not ready after " + timeout + "; log:\n" + tail(log));
  }

  static String tail(Path log) {
    try {
      if (log == null || !Files.exists(log)) {
        return "(no log)";
      }
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    } catch (IOException e) {
      return "(log unreadable: " + e + ")";
    }
  }

  /** Ends a process: SIGTERM, then SIGKILL after 10 s. */
  static void stop(Process p) throws InterruptedException {
    if (p == null || !p.isAlive()) {
      return;
    }
    p.destroy();
    if (!p.waitFor(10, TimeUnit.SECONDS)) {
      p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  /**
   * Starts {@code io.inferlens.api.Main serve} in a fresh JVM with this JVM's class path.
   * Surefire is configured with {@code useManifestOnlyJar=false} so {@code java.class.path}
   * lists every entry.
   */
  static Process startInferLens(int port, Path dataDir, Path log, String... extraArgs)
      throws IOException {
    return startInferLens(List.of("-Xmx512m"), port, dataDir, log, extraArgs);
  }

  /**
   * {@link #startInferLens(int, Path, Path, String...)} with the given JVM options instead of
   * {@code -Xmx512m}, e.g. a small heap for a test that must not need more.
   */
  static Process startInferLens(List<String> jvmOptions, int port, Path dataDir, Path log,
      String... extraArgs) throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(jvmOptions);
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add("io.inferlens.api.Main");
    cmd.add("serve");
    cmd.add("--listen");
    cmd.add("127.0.0.1:" + port);
    cmd.add("--data-dir");
    cmd.add(dataDir.toString());
    cmd.addAll(List.of(extraArgs));
    return new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
  }
}
