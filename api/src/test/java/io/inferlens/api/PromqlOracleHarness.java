package io.inferlens.api;

import io.inferlens.api.PromqlOracleCorpus.Case;
import io.inferlens.proto.prometheus.Remote.WriteRequest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs the oracle: starts the reference Prometheus and the server under test, remote-writes
 * {@link PromqlOracleData} to both, sends every corpus case to both and compares the answers
 * ({@link PromqlOracleComparison}). Shared by {@link PromqlOracleTest} and its {@code main}.
 *
 * <p>Everything listens on 127.0.0.1. Queries go out {@value #PARALLEL_CASES} cases at a time
 * (each case to both servers at once) through one HTTP/1.1 client, so that the whole corpus takes
 * seconds on two cores.
 */
final class PromqlOracleHarness implements AutoCloseable {

  static final Path PROMETHEUS = Path.of("/usr/bin/prometheus");
  static final int PARALLEL_CASES = 4;
  /** One query's time limit, as the compliance tester's 10 s context. */
  static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);
  /** Remote-write slice: one request holds 10 minutes of every series. */
  static final long WRITE_SLICE_MS = 10 * 60_000L;

  /** Which server answers the corpus besides the reference Prometheus. */
  enum Target {
    /** An in-process {@link InferLensServer} with a temporary data directory: the default. */
    INFERLENS,
    /** A second Prometheus 2.42: validates the harness and the corpus. */
    PROMETHEUS;

    /** @return the target named by {@code name} ({@code inferlens} or {@code prometheus}) */
    static Target named(String name) {
      return valueOf(name.toUpperCase(Locale.ROOT));
    }
  }

  /**
   * One case's outcome.
   *
   * @param corpusProblem how Prometheus's answer contradicts the corpus line (wrong {@code
   *     fail=}, {@code empty}), else null: the corpus, not the server, is wrong
   * @param differences how the tested answer differs from Prometheus's; empty when they match
   */
  record Outcome(Case testCase, PromqlOracleAnswer reference, PromqlOracleAnswer tested,
      String corpusProblem, List<String> differences) {
    boolean passed() {
      return corpusProblem == null && differences.isEmpty();
    }
  }

  final Target target;
  final PromqlOracleData data;
  private final HttpClient http;
  private final ExecutorService pool;
  private final ExecutorService httpThreads;
  private ExternalProcesses.Prom reference;
  private ExternalProcesses.Prom secondPrometheus;
  private InferLensServer inferlens;
  private URI referenceBase;
  private URI testedBase;

  /**
   * The data's base for a run at {@code nowMs}: 90 minutes before UTC midnight two days ago, so
   * the data crosses a day boundary (date functions change value), lies well inside InferLens's
   * 30-day retention, and is the same all day long.
   */
  static long baseMs(long nowMs) {
    long day = 86_400_000L;
    return nowMs - Math.floorMod(nowMs, day) - 2 * day - 90 * 60_000L;
  }

  PromqlOracleHarness(Target target, long baseMs) {
    this.target = target;
    this.data = new PromqlOracleData(baseMs);
    this.pool = Executors.newFixedThreadPool(PARALLEL_CASES);
    this.httpThreads = Executors.newFixedThreadPool(2);
    this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5)).executor(httpThreads).build();
  }

  /**
   * Starts both servers under {@code dir} and writes the data to each.
   *
   * @throws IllegalStateException with the server's answer if a write is refused
   */
  void start(Path dir) throws Exception {
    String config = "global:\n  scrape_interval: 15s\n";
    reference = ExternalProcesses.startPrometheus(dir, "reference", config,
        "--web.enable-remote-write-receiver");
    referenceBase = reference.base();
    if (target == Target.PROMETHEUS) {
      secondPrometheus = ExternalProcesses.startPrometheus(dir, "tested", config,
          "--web.enable-remote-write-receiver");
      testedBase = secondPrometheus.base();
    } else {
      inferlens = InferLensServer.start(ServerConfig.forTests(dir.resolve("inferlens")),
          Clock.systemUTC());
      testedBase = URI.create("http://127.0.0.1:" + inferlens.port());
    }
    reference.awaitReady();
    if (secondPrometheus != null) {
      secondPrometheus.awaitReady();
    }
    List<WriteRequest> writes = data.writeRequests(WRITE_SLICE_MS);
    for (WriteRequest w : writes) {
      Future<HttpResponse<String>> ref = pool.submit(() -> Requests.write(referenceBase, w));
      HttpResponse<String> mine = Requests.write(testedBase, w);
      requireWritten(ref.get(), "Prometheus", reference.log());
      requireWritten(mine, target.name().toLowerCase(Locale.ROOT),
          secondPrometheus == null ? null : secondPrometheus.log());
    }
  }

  private static void requireWritten(HttpResponse<String> r, String who, Path log) {
    if (r.statusCode() != 204) {
      throw new IllegalStateException(who + " refused a remote write: HTTP " + r.statusCode()
          + " " + r.body() + (log == null ? "" : "\nits log:\n" + ExternalProcesses.tail(log)));
    }
  }

  /** @return the tested server's base URL, e.g. {@code http://127.0.0.1:41234} */
  URI testedBase() {
    return testedBase;
  }

  /**
   * Sends every case to both servers and compares.
   *
   * @param budget the whole run's time: a case not answered by then (or not yet sent) fails with
   *     "no answer before the run's deadline", so that a slow server still gets its table
   * @return the outcomes in corpus order
   */
  List<Outcome> run(List<Case> cases, Duration budget) throws Exception {
    long deadline = System.nanoTime() + budget.toNanos();
    List<Future<Outcome>> futures = new ArrayList<>();
    for (Case c : cases) {
      futures.add(pool.submit(() -> runCase(c, deadline)));
    }
    List<Outcome> out = new ArrayList<>();
    for (Future<Outcome> f : futures) {
      out.add(f.get());
    }
    return out;
  }

  private Outcome runCase(Case c, long deadline) {
    PromqlOracleAnswer r;
    PromqlOracleAnswer m;
    if (System.nanoTime() > deadline) {
      r = unanswered();
      m = unanswered();
    } else {
      CompletableFuture<HttpResponse<String>> ref = send(referenceBase, c);
      CompletableFuture<HttpResponse<String>> mine = send(testedBase, c);
      r = answer(ref, deadline);
      m = answer(mine, deadline);
    }
    return new Outcome(c, r, m, corpusProblem(c, r),
        PromqlOracleComparison.differences(r, m, c.ordered(), data.baseMs));
  }

  private static PromqlOracleAnswer unanswered() {
    return PromqlOracleAnswer.noAnswer("no answer before the run's deadline");
  }

  private CompletableFuture<HttpResponse<String>> send(URI base, Case c) {
    String q = "query=" + Requests.enc(c.query());
    String path = c.kind() == PromqlOracleCorpus.Kind.RANGE
        ? "/api/v1/query_range?" + q + "&start=" + PromqlOracleCorpus.seconds(c.startMs())
            + "&end=" + PromqlOracleCorpus.seconds(c.endMs()) + "&step="
            + PromqlOracleCorpus.seconds(c.stepMs())
        : "/api/v1/query?" + q + "&time=" + PromqlOracleCorpus.seconds(c.timeMs());
    return http.sendAsync(HttpRequest.newBuilder(base.resolve(path))
        .timeout(REQUEST_TIMEOUT).GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  private static PromqlOracleAnswer answer(CompletableFuture<HttpResponse<String>> f,
      long deadline) {
    try {
      HttpResponse<String> r = f.get(Math.max(0, deadline - System.nanoTime()),
          TimeUnit.NANOSECONDS);
      return PromqlOracleAnswer.parse(r.statusCode(), r.body());
    } catch (TimeoutException e) {
      f.cancel(true);
      return unanswered();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return PromqlOracleAnswer.noAnswer("interrupted");
    } catch (ExecutionException e) {
      return PromqlOracleAnswer.noAnswer("request failed: " + e.getCause());
    }
  }

  /** Checks Prometheus's answer against what the corpus line says of it. */
  static String corpusProblem(Case c, PromqlOracleAnswer r) {
    if (r.malformed() != null) {
      return "Prometheus's answer is not valid: " + r.malformed();
    }
    if (c.expectedError() != null) {
      if (r.success()) {
        return "the corpus says Prometheus rejects it (" + c.expectedError()
            + "), but it answers a " + r.resultType();
      }
      return c.expectedError().equals(r.errorType()) ? null
          : "the corpus says fail=" + c.expectedError() + ", Prometheus's errorType is "
              + r.errorType() + " (" + r.error() + ")";
    }
    if (!r.success()) {
      return "Prometheus rejects it (" + r.errorType() + ": " + r.error()
          + "); mark it fail=" + r.errorType() + " or fix it";
    }
    boolean empty = r.series().isEmpty();
    if (empty != c.expectEmpty()) {
      return c.expectEmpty() ? "the corpus says empty, but Prometheus answers "
          + r.series().size() + " series" : "Prometheus answers an empty result; mark it empty "
          + "or fix it";
    }
    return null;
  }

  /**
   * The per-case table: line, kind, PASS/FAIL/CORPUS, the first differences and the query; then,
   * for each failed case (each case with {@code allAnswers}), both answers.
   *
   * @param maxAnswerChars characters of each answer shown
   */
  String table(List<Outcome> outcomes, int maxAnswerChars, boolean allAnswers) {
    StringBuilder sb = new StringBuilder();
    sb.append(String.format("PromQL oracle: Prometheus 2.42 vs %s, data base %s (%d)%n",
        target.name().toLowerCase(Locale.ROOT), java.time.Instant.ofEpochMilli(data.baseMs),
        data.baseMs / 1000));
    sb.append(String.format("%5s  %-7s  %-6s  %s%n", "line", "kind", "result", "query / detail"));
    for (Outcome o : outcomes) {
      Case c = o.testCase();
      String result = o.corpusProblem() != null ? "CORPUS" : o.passed() ? "PASS" : "FAIL";
      sb.append(String.format("%5d  %-7s  %-6s  %s%n", c.line(),
          c.kind().name().toLowerCase(Locale.ROOT), result, c.query()));
      if (!o.passed()) {
        sb.append(String.format("%24s%s%n", "", o.corpusProblem() != null ? o.corpusProblem()
            : PromqlOracleComparison.summarize(o.differences())));
      }
    }
    sb.append(summary(outcomes)).append(System.lineSeparator());
    for (Outcome o : outcomes) {
      if (!o.passed() || allAnswers) {
        sb.append(System.lineSeparator()).append(details(o, maxAnswerChars));
      }
    }
    return sb.toString();
  }

  /** One failed case: where it is, what differs, and both answers. */
  String details(Outcome o, int maxAnswerChars) {
    String nl = System.lineSeparator();
    return "line " + o.testCase().line() + ": " + o.testCase().describe(data.baseMs) + nl
        + "  " + (o.corpusProblem() != null ? "corpus: " + o.corpusProblem()
            : o.passed() ? "PASS" : PromqlOracleComparison.summarize(o.differences())) + nl
        + "  Prometheus: " + o.reference().render(data.baseMs, maxAnswerChars) + nl
        + "  " + target.name().toLowerCase(Locale.ROOT) + ": "
        + o.tested().render(data.baseMs, maxAnswerChars) + nl;
  }

  /** @return {@code cases N, passed P, failed F (of which C corpus problems)} */
  static String summary(List<Outcome> outcomes) {
    long passed = outcomes.stream().filter(Outcome::passed).count();
    long corpus = outcomes.stream().filter(o -> o.corpusProblem() != null).count();
    return "cases " + outcomes.size() + ", passed " + passed + ", failed "
        + (outcomes.size() - passed) + " (of which " + corpus + " corpus problems)";
  }

  /** Stops what {@link #start} started: the server under test, then the Prometheus(es). */
  @Override
  public void close() {
    pool.shutdownNow();
    httpThreads.shutdownNow();
    if (inferlens != null) {
      inferlens.close();
    }
    try {
      if (secondPrometheus != null) {
        ExternalProcesses.stop(secondPrometheus.process());
      }
      if (reference != null) {
        ExternalProcesses.stop(reference.process());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
