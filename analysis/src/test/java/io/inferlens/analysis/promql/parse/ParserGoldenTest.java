package io.inferlens.analysis.promql.parse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.inferlens.analysis.promql.ast.Printer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The parser against what the real Prometheus 2.42 said about every expression of
 * {@code promql/parse-corpus.txt}, as {@code scripts/promql-golden.sh} recorded it in
 * {@code promql/parse-golden.tsv}: the same queries accepted, the same {@code format_query} text
 * for them ({@link Printer#pretty}), the same error message for the others. Prometheus is not
 * needed to run this test; re-run the script after changing the corpus.
 */
class ParserGoldenTest {

  /** What the HTTP API puts before a parse error; the parser's message is the rest. */
  private static final String API_PREFIX = "invalid parameter \"query\": ";

  /**
   * One recorded line: its number in the golden file, the query (line breaks restored), and
   * Prometheus's verdict.
   */
  record Golden(int line, String query, boolean accepted, String text) {
    @Override
    public String toString() {
      return line + ": " + query.replace("\n", "⏎");
    }
  }

  static Stream<Golden> golden() {
    return read().stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("golden")
  void matchesPrometheus(Golden g) {
    if (g.accepted()) {
      assertThat(Printer.pretty(Parser.parse(g.query()))).isEqualTo(g.text());
    } else {
      Throwable t = catchThrowable(() -> Parser.parse(g.query()));
      assertThat(t).as("Prometheus rejects it").isInstanceOf(ParseException.class);
      assertThat(t.getMessage()).isEqualTo(g.text().substring(API_PREFIX.length()));
    }
  }

  @Test
  void goldenFileCoversTheWholeCorpus() throws IOException {
    List<String> corpus = new ArrayList<>();
    try (BufferedReader r = reader("/promql/parse-corpus.txt")) {
      for (String line; (line = r.readLine()) != null; ) {
        if (!line.isEmpty() && !line.startsWith(";;")) {
          corpus.add(line.replace("⏎", "\n"));
        }
      }
    }
    List<Golden> golden = read();
    assertThat(golden).extracting(Golden::query).containsExactlyElementsOf(corpus);
    assertThat(golden).hasSizeGreaterThanOrEqualTo(150);
    assertThat(golden).filteredOn(Golden::accepted).hasSizeGreaterThan(100);
    assertThat(golden).filteredOn(g -> !g.accepted()).hasSizeGreaterThan(100)
        .allSatisfy(g -> assertThat(g.text()).startsWith(API_PREFIX));
  }

  private static List<Golden> read() {
    List<Golden> out = new ArrayList<>();
    try (BufferedReader r = reader("/promql/parse-golden.tsv")) {
      for (String line; (line = r.readLine()) != null; ) {
        String[] f = line.split("\t", -1);
        if (f.length != 3 || !(f[1].equals("ok") || f[1].equals("error"))) {
          throw new IllegalStateException("bad golden line: " + line);
        }
        out.add(new Golden(out.size() + 1, unescape(f[0]).replace("⏎", "\n"), f[1].equals("ok"),
            unescape(f[2])));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  private static BufferedReader reader(String resource) {
    InputStream in = ParserGoldenTest.class.getResourceAsStream(resource);
    if (in == null) {
      throw new IllegalStateException("missing test resource " + resource);
    }
    return new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
  }

  /** Undoes the script's escapes: {@code \\}, {@code \n}, {@code \t}. */
  private static String unescape(String s) {
    StringBuilder sb = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '\\' && i + 1 < s.length()) {
        char e = s.charAt(++i);
        sb.append(e == 'n' ? '\n' : e == 't' ? '\t' : e);
      } else {
        sb.append(c);
      }
    }
    return sb.toString();
  }
}
