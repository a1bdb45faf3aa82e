package io.inferlens.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.inferlens.api.PromqlOracleCorpus.Case;
import io.inferlens.api.PromqlOracleHarness.Outcome;
import io.inferlens.api.PromqlOracleHarness.Target;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * PromQL against the oracle: Debian's Prometheus 2.42 and the server under test receive the same
 * remote writes ({@link PromqlOracleData}: 3 hours of vLLM and synthetic series), then every case
 * of {@code src/test/resources/promql/oracle-queries.txt} ({@link PromqlOracleCorpus}) is sent to
 * both as {@code /api/v1/query_range} or {@code /api/v1/query}, and the answers must match under
 * the public compliance tester's rules ({@link PromqlOracleComparison}: values within a relative
 * 1e-5, NaN equal to NaN, label sets exact, order only where Prometheus defines it; a query
 * Prometheus rejects must be rejected with the same {@code errorType}). The test passes only when
 * every case matches; the failure message lists each failed case with both answers and a summary
 * {@code cases N, passed P, failed F}.
 *
 * <p>The corpus is checked against Prometheus at the same time: a case whose line says {@code
 * fail=…} must be rejected by it with that {@code errorType}, every other case must succeed, and
 * with a non-empty result unless the line says {@code empty}. Such a "corpus problem" fails the
 * test too, whatever the server under test answers.
 *
 * <p>How to run it (from the repository root, after {@code mvn -o -q -pl api -am install
 * -DskipTests} once; after changing the engine, {@code mvn -o -q -pl analysis install
 * -DskipTests} first, since {@code -pl api} takes the other modules from the local repository):
 *
 * <pre>
 * mvn -o -q -pl api test -Dtest=PromqlOracleTest            # InferLens vs Prometheus
 * mvn -o -q -pl api test -Dtest=PromqlOracleTest -Doracle.target=prometheus   # harness check
 * mvn -o -q -pl api test -Dtest=PromqlOracleTest -Doracle.only='histogram_quantile|rate'
 * cat api/target/promql-oracle-report.txt                    # the per-case diff table
 * </pre>
 *
 * System properties: {@code oracle.target} is {@code inferlens} (the default) or {@code
 * prometheus} (a second Prometheus 2.42 in InferLens's place, which must match on every case: it
 * validates the harness and the corpus); {@code oracle.only} a regular expression (Java syntax,
 * found anywhere in the query) selecting the cases to run; {@code oracle.answers=all} shows both
 * answers of passing cases too, not only of failed ones. Every run writes the per-case table to
 * {@code api/target/promql-oracle-report.txt}.
 *
 * <p>For the table on the console, the standalone runner {@link #main} takes the same settings as
 * arguments. Its class path is the one of the last test run, which that run writes to {@code
 * api/target/promql-oracle-classpath.txt} (Maven offline has no exec plugin here):
 *
 * <pre>
 * java -cp "$(cat api/target/promql-oracle-classpath.txt)" io.inferlens.api.PromqlOracleTest \
 *     inferlens 'histogram_quantile'
 * </pre>
 *
 * The whole run takes well under a minute (Prometheus's start, 19 remote writes per server, the
 * corpus four cases at a time; about 5 s against a second Prometheus, 20 s against InferLens),
 * bounded by {@link #RUN_BUDGET} and {@link Timeout}s; skipped when {@code
 * /usr/bin/prometheus} is missing (failed under CI, whose .ci/run must install it).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PromqlOracleTest {

  /** The corpus must keep at least this many cases (issue 18's coverage). */
  static final int MIN_CASES = 250;
  /** The corpus run's time; cases unanswered by then fail, and the table is still written. */
  static final Duration RUN_BUDGET = Duration.ofSeconds(75);
  /** Characters of each answer shown per failed case in the assertion message. */
  static final int MESSAGE_ANSWER_CHARS = 600;

  private PromqlOracleHarness harness;
  private List<Case> cases;

  @BeforeAll
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void writeTheSameDataToBoth(@TempDir Path dir) throws Exception {
    ExternalProcesses.requireBinary(PromqlOracleHarness.PROMETHEUS, "prometheus");
    Target target = Target.named(System.getProperty("oracle.target", "inferlens"));
    harness = new PromqlOracleHarness(target,
        PromqlOracleHarness.baseMs(System.currentTimeMillis()));
    cases = select(PromqlOracleCorpus.load(harness.data.baseMs),
        System.getProperty("oracle.only", ""));
    harness.start(dir);
  }

  @AfterAll
  void stop() throws Exception {
    if (harness != null) {
      harness.close();
    }
  }

  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void everyCaseAnswersAsPrometheusDoes() throws Exception {
    if (System.getProperty("oracle.only", "").isEmpty()) {
      assertThat(cases).as("corpus cases").hasSizeGreaterThanOrEqualTo(MIN_CASES);
    }
    assertThat(cases).as("cases selected by oracle.only").isNotEmpty();
    List<Outcome> outcomes = harness.run(cases, RUN_BUDGET);
    Path target = Path.of(System.getProperty("basedir", "."), "target");
    Path report = target.resolve("promql-oracle-report.txt");
    Files.createDirectories(target);
    Files.writeString(target.resolve("promql-oracle-classpath.txt"),
        System.getProperty("java.class.path"), StandardCharsets.UTF_8);
    Files.writeString(report, harness.table(outcomes, 4_000,
        "all".equals(System.getProperty("oracle.answers"))), StandardCharsets.UTF_8);

    StringBuilder failed = new StringBuilder();
    for (Outcome o : outcomes) {
      if (!o.passed()) {
        failed.append(System.lineSeparator()).append(harness.details(o, MESSAGE_ANSWER_CHARS));
      }
    }
    String summary = PromqlOracleHarness.summary(outcomes);
    assertThat(outcomes.stream().filter(o -> !o.passed()).count())
        .as("%s; the table is in %s%n%s", summary, report, failed)
        .isZero();
  }

  /** @return the cases whose query matches {@code regex} somewhere (all when it is empty) */
  static List<Case> select(List<Case> all, String regex) {
    if (regex.isEmpty()) {
      return all;
    }
    Pattern p = Pattern.compile(regex);
    return all.stream().filter(c -> p.matcher(c.query()).find()).collect(Collectors.toList());
  }

  /**
   * The standalone runner: starts both servers, runs the corpus and prints the per-case table
   * with every failed case's answers; exits 0 when every case matches, 1 otherwise.
   *
   * @param args {@code [inferlens|prometheus [REGEX]]}: the server under test (default
   *     inferlens) and the cases to run (as {@code oracle.only})
   */
  public static void main(String[] args) throws Exception {
    Target target = Target.named(args.length > 0 ? args[0] : "inferlens");
    String only = args.length > 1 ? args[1] : "";
    Path dir = Files.createTempDirectory("promql-oracle");
    boolean allPassed;
    long started = System.nanoTime();
    try (PromqlOracleHarness h = new PromqlOracleHarness(target,
        PromqlOracleHarness.baseMs(System.currentTimeMillis()))) {
      List<Case> selected = select(PromqlOracleCorpus.load(h.data.baseMs), only);
      h.start(dir);
      List<Outcome> outcomes = h.run(selected, Duration.ofMinutes(10));
      System.out.print(h.table(outcomes, 4_000, "all".equals(System.getProperty("oracle.answers"))));
      allPassed = outcomes.stream().allMatch(Outcome::passed);
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
    System.out.printf("took %.1f s%n", (System.nanoTime() - started) / 1e9);
    System.exit(allPassed ? 0 : 1);
  }
}
