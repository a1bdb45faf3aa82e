package io.inferlens.api;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The query corpus of {@link PromqlOracleTest}, read from {@value #RESOURCE}. The file's header
 * comment is its specification; in short, each line is
 *
 * <pre>kind TAB query [TAB options]</pre>
 *
 * with {@code kind} {@code range} or {@code instant}, and options separated by spaces: {@code
 * start=T end=T step=D} (range), {@code time=T} (instant), {@code fail=ERRORTYPE} (Prometheus
 * rejects the query with this {@code errorType}) and {@code empty} (Prometheus answers an empty
 * result). {@code T} is a time relative to the data's base, {@code +90m} or {@code -5m}; {@code
 * D} a Prometheus duration ({@code 1m30s}). In the query, {@code ${t0}} and {@code ${t0+90m}}
 * stand for Unix times in seconds, for {@code @} modifiers and {@code time()} arithmetic.
 */
final class PromqlOracleCorpus {

  static final String RESOURCE = "/promql/oracle-queries.txt";
  /** Defaults, relative to the base, ms: 5 min before the data to 10 min after its end. */
  static final long DEFAULT_START_MS = -5 * 60_000L;
  static final long DEFAULT_END_MS = PromqlOracleData.SPAN_MS + 10 * 60_000L;
  static final long DEFAULT_STEP_MS = 60_000L;
  /** Default instant-query time relative to the base, ms: two hours in. */
  static final long DEFAULT_TIME_MS = 2 * 3_600_000L;

  private static final Pattern DURATION = Pattern.compile("(\\d+)(ms|s|m|h|d|w|y)");
  private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{t0(?:([+-])([0-9a-z]+))?}");

  private PromqlOracleCorpus() {}

  /** How a case is sent: {@code /api/v1/query_range} or {@code /api/v1/query}. */
  enum Kind { RANGE, INSTANT }

  /**
   * One case, with its times resolved against the base.
   *
   * @param line the line number in the corpus file, from 1
   * @param query the PromQL, placeholders substituted
   * @param startMs range start, Unix ms (range cases)
   * @param endMs range end, Unix ms (range cases)
   * @param stepMs range step, ms (range cases)
   * @param timeMs evaluation time, Unix ms (instant cases)
   * @param expectedError the {@code errorType} Prometheus must answer, or null for success
   * @param expectEmpty whether Prometheus's result must be empty (otherwise non-empty)
   */
  record Case(int line, Kind kind, String query, long startMs, long endMs, long stepMs,
      long timeMs, String expectedError, boolean expectEmpty) {

    /** @return whether result order is compared (see {@link #isOrdered}) */
    boolean ordered() {
      return kind == Kind.INSTANT && isOrdered(query);
    }

    /** @return the case as one line for reports: kind, query and its times */
    String describe(long baseMs) {
      return kind == Kind.RANGE
          ? "range   " + query + "  [" + PromqlOracleAnswer.offset(startMs - baseMs) + ".."
              + PromqlOracleAnswer.offset(endMs - baseMs) + " step "
              + PromqlOracleAnswer.offset(stepMs).substring(1) + "]"
          : "instant " + query + "  [at " + PromqlOracleAnswer.offset(timeMs - baseMs) + "]";
    }
  }

  /**
   * Reads the corpus resource.
   *
   * @param baseMs the data's base, Unix ms
   * @return the cases in file order
   * @throws IllegalArgumentException naming the line, for a malformed line
   */
  static List<Case> load(long baseMs) throws IOException {
    try (InputStream in = PromqlOracleCorpus.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(RESOURCE + " is not on the test class path");
      }
      BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
      List<Case> out = new ArrayList<>();
      String text;
      int line = 0;
      while ((text = r.readLine()) != null) {
        line++;
        if (text.isBlank() || text.startsWith("#")) {
          continue;
        }
        out.add(parse(line, text, baseMs));
      }
      return out;
    }
  }

  static Case parse(int line, String text, long baseMs) {
    String[] fields = text.split("\t");
    if (fields.length < 2 || fields.length > 3 || fields[1].isBlank()) {
      throw new IllegalArgumentException("line " + line + ": want kind<TAB>query[<TAB>options]: "
          + text);
    }
    Kind kind;
    if (fields[0].equals("range")) {
      kind = Kind.RANGE;
    } else if (fields[0].equals("instant")) {
      kind = Kind.INSTANT;
    } else {
      throw new IllegalArgumentException("line " + line + ": kind must be range or instant: "
          + fields[0]);
    }
    long start = DEFAULT_START_MS;
    long end = DEFAULT_END_MS;
    long step = DEFAULT_STEP_MS;
    long time = DEFAULT_TIME_MS;
    String error = null;
    boolean empty = false;
    if (fields.length == 3) {
      for (String opt : fields[2].trim().split(" +")) {
        int eq = opt.indexOf('=');
        String key = eq < 0 ? opt : opt.substring(0, eq);
        String value = eq < 0 ? "" : opt.substring(eq + 1);
        try {
          switch (key) {
            case "start": start = relative(value); break;
            case "end": end = relative(value); break;
            case "step": step = duration(value); break;
            case "time": time = relative(value); break;
            case "fail": error = value; break;
            case "empty": empty = true; break;
            default: throw new IllegalArgumentException("unknown option " + key);
          }
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException("line " + line + ": " + e.getMessage() + ": " + text,
              e);
        }
      }
    }
    if (error != null && !List.of("bad_data", "execution").contains(error)) {
      throw new IllegalArgumentException("line " + line + ": fail= wants bad_data or execution");
    }
    return new Case(line, kind, substitute(fields[1], baseMs), baseMs + start, baseMs + end,
        step, baseMs + time, error, empty);
  }

  /** Replaces {@code ${t0}} and {@code ${t0±D}} with Unix seconds (decimal when not whole). */
  static String substitute(String query, long baseMs) {
    Matcher m = PLACEHOLDER.matcher(query);
    StringBuilder sb = new StringBuilder();
    while (m.find()) {
      long ms = baseMs;
      if (m.group(1) != null) {
        long d = duration(m.group(2));
        ms += m.group(1).equals("+") ? d : -d;
      }
      m.appendReplacement(sb, seconds(ms));
    }
    m.appendTail(sb);
    return sb.toString();
  }

  /** @return ms as decimal seconds without trailing zeros, e.g. {@code 1675209600.5} */
  static String seconds(long ms) {
    return BigDecimal.valueOf(ms).movePointLeft(3).stripTrailingZeros().toPlainString();
  }

  /** {@code +D} or {@code -D} relative to the base, ms. */
  static long relative(String s) {
    if (s.startsWith("+")) {
      return duration(s.substring(1));
    }
    if (s.startsWith("-")) {
      return -duration(s.substring(1));
    }
    throw new IllegalArgumentException("a time is +DURATION or -DURATION from the base: " + s);
  }

  /**
   * A Prometheus duration ({@code 1h30m}, {@code 500ms}; units as promql/parser at v2.42.0:
   * ms, s, m, h, d, w, y of 365 d), in ms.
   */
  static long duration(String s) {
    Matcher m = DURATION.matcher(s);
    long total = 0;
    int at = 0;
    while (m.find() && m.start() == at) {
      long n = Long.parseLong(m.group(1));
      switch (m.group(2)) {
        case "ms": total += n; break;
        case "s": total += n * 1_000; break;
        case "m": total += n * 60_000; break;
        case "h": total += n * 3_600_000; break;
        case "d": total += n * 86_400_000; break;
        case "w": total += n * 7 * 86_400_000; break;
        default: total += n * 365 * 86_400_000L; break;
      }
      at = m.end();
    }
    if (at != s.length() || s.isEmpty()) {
      throw new IllegalArgumentException("not a duration: " + s);
    }
    return total;
  }

  /**
   * Whether an instant query's result order is defined, so that it is compared: the whole
   * expression (outer parentheses aside) is a call of {@code sort} or {@code sort_desc}, or a
   * {@code topk}/{@code bottomk} without {@code by}/{@code without} (one group, which Prometheus
   * returns in order; its own promql/testdata/aggregators.test at v2.42.0 checks these with
   * {@code eval_ordered}). Every other result is compared as a set, as range results always are.
   */
  static boolean isOrdered(String query) {
    String q = query.strip();
    while (q.startsWith("(") && closing(q, 0) == q.length() - 1) {
      q = q.substring(1, q.length() - 1).strip();
    }
    Matcher m = Pattern.compile("^(sort|sort_desc|topk|bottomk)\\s*\\(").matcher(q);
    return m.find() && closing(q, m.end() - 1) == q.length() - 1;
  }

  /** @return the index of the parenthesis closing the one at {@code open}, strings skipped */
  private static int closing(String q, int open) {
    int depth = 0;
    for (int i = open; i < q.length(); i++) {
      char c = q.charAt(i);
      if (c == '"' || c == '\'' || c == '`') {
        int j = i + 1;
        while (j < q.length() && q.charAt(j) != c) {
          j += q.charAt(j) == '\\' && c != '`' ? 2 : 1;
        }
        i = j;
      } else if (c == '(') {
        depth++;
      } else if (c == ')' && --depth == 0) {
        return i;
      }
    }
    return -1;
  }
}
