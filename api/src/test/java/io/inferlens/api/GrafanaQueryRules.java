package io.inferlens.api;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How Grafana's Prometheus data source (Grafana 9 and 10, server access mode) turns dashboard
 * variables and panel queries into HTTP requests, so that a test can send what Grafana sends
 * without Grafana. Read in grafana/grafana (Grafana 10.x):
 *
 * <ul>
 *   <li>{@code public/app/plugins/datasource/prometheus/metric_find_query.ts}: a variable
 *       {@code label_values(metric, label)} becomes {@code GET /api/v1/label/<label>/values} with
 *       {@code match[]=metric&start=&end=} when the data source is Prometheus &gt;= 2.24
 *       ({@code hasLabelsMatchAPISupport}, from {@code prometheusType}/{@code prometheusVersion}),
 *       {@code label_values(label)} the same without {@code match[]}; start and end are
 *       {@code Math.ceil(ms / 1000)} of the dashboard range ({@code getPrometheusTime});
 *   <li>{@code datasource.ts}: {@code metadataRequest} sends label values as GET whatever
 *       {@code httpMethod} is, parameters joined with {@code encodeURIComponent};
 *       {@code interpolateQueryExpr} escapes a multi-value or include-All variable with
 *       {@code prometheusSpecialRegexEscape} and joins several values as {@code (a|b)}, "All"
 *       without a custom all value standing for every value;
 *   <li>{@code pkg/tsdb/prometheus/models/query.go}: {@code calculatePrometheusInterval},
 *       {@code calculateRateInterval}, {@code InterpolateVariables}, {@code AlignTimeRange};
 *       {@code pkg/tsdb/intervalv2}: {@code Calculate}, {@code CalculateSafeInterval},
 *       {@code roundInterval}; {@code packages/grafana-data rangeutil.calculateInterval} (the
 *       panel interval the frontend sends as {@code intervalMs});
 *   <li>{@code pkg/tsdb/prometheus/client/client.go}: {@code QueryRange} posts
 *       {@code query, start, end, step} and {@code QueryInstant} {@code query, time} as
 *       {@code application/x-www-form-urlencoded} (Go's {@code url.Values.Encode}: keys sorted,
 *       {@code QueryEscape}), times and step as {@code FormatFloat(seconds, 'f', -1, 64)}.
 * </ul>
 */
final class GrafanaQueryRules {

  /** Grafana's safe resolution: no more points than this whatever the panel width. */
  static final long SAFE_RESOLUTION = 11_000;

  private static final Pattern LABEL_VALUES =
      Pattern.compile("^label_values\\((?:(.+),\\s*)?([a-zA-Z_][a-zA-Z0-9_]*)\\)\\s*$");
  /** templateSrv's variable syntaxes: $name, [[name]] and ${name}. */
  private static final Pattern VARIABLE =
      Pattern.compile("\\$(\\w+)|\\[\\[(\\w+?)\\]\\]|\\$\\{(\\w+)\\}");
  private static final Pattern REGEX_SPECIAL = Pattern.compile("[$^*{}\\[\\]'+?.()|]");

  private GrafanaQueryRules() {}

  /**
   * The step and interval variables of one panel query without a min interval or interval
   * factor, in milliseconds:
   *
   * <ul>
   *   <li>{@code intervalMs} (frontend): {@code max(roundInterval(range / maxDataPoints), scrape)},
   *       the scrape interval being the data source's {@code timeInterval};
   *   <li>{@code stepMs} (backend): {@code max(c, roundInterval(range / 11000))} where {@code c}
   *       is {@code intervalMs} if {@code range / maxDataPoints < intervalMs}, else
   *       {@code roundInterval(range / maxDataPoints)};
   *   <li>{@code rateIntervalMs} ({@code $__rate_interval}):
   *       {@code max(intervalMs + scrape, 4 × scrape)}.
   * </ul>
   *
   * @param intervalMs the panel interval, milliseconds
   * @param stepMs the query_range step, milliseconds
   * @param rateIntervalMs {@code $__rate_interval}, milliseconds
   */
  record Timing(long intervalMs, long stepMs, long rateIntervalMs) {}

  /**
   * @param rangeMs the dashboard range (to − from), milliseconds, &gt; 0
   * @param maxDataPoints the panel's max data points (its width in pixels by default), &gt; 0
   * @param scrapeMs the data source's scrape interval ({@code timeInterval}), milliseconds, &gt; 0
   * @return the timing Grafana computes, see {@link Timing}
   */
  static Timing timing(long rangeMs, long maxDataPoints, long scrapeMs) {
    long intervalMs = Math.max(roundIntervalMs((double) rangeMs / maxDataPoints), scrapeMs);
    long perPoint = rangeMs / maxDataPoints;
    long calculated = perPoint < intervalMs ? intervalMs : roundIntervalMs(perPoint);
    long safe = roundIntervalMs(rangeMs / SAFE_RESOLUTION);
    long step = Math.max(calculated, safe);
    long rate = Math.max(intervalMs + scrapeMs, 4 * scrapeMs);
    return new Timing(intervalMs, step, rate);
  }

  /**
   * Grafana's {@code roundInterval}: an interval to the nearest "nice" one below it, e.g.
   * 10.8 s → 10 s, 21.6 s → 20 s, 86.4 s → 1 m.
   *
   * @param ms an interval, milliseconds, &gt;= 0
   * @return the rounded interval, milliseconds
   */
  static long roundIntervalMs(double ms) {
    double[] upTo = {10, 15, 35, 75, 150, 350, 750, 1_500, 3_500, 7_500, 12_500, 17_500, 25_000,
        45_000, 90_000, 210_000, 450_000, 750_000, 1_050_000, 1_500_000, 2_700_000, 5_400_000,
        9_000_000, 16_200_000, 32_400_000, 86_400_000, 172_800_000, 604_800_000, 1_814_400_000};
    long[] to = {1, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 15_000, 20_000, 30_000,
        60_000, 120_000, 300_000, 600_000, 900_000, 1_200_000, 1_800_000, 3_600_000, 7_200_000,
        10_800_000, 21_600_000, 43_200_000, 86_400_000, 86_400_000, 604_800_000};
    for (int i = 0; i < upTo.length; i++) {
      if (ms <= upTo[i]) {
        return to[i];
      }
    }
    return ms < 3_628_800_000.0 ? 2_592_000_000L : 31_536_000_000L;
  }

  /**
   * Go's {@code time.Duration.String()} for whole milliseconds, which Grafana uses for
   * {@code $__rate_interval}: 60 s → {@code 1m0s}, 75 s → {@code 1m15s}, 45 s → {@code 45s},
   * 1 h → {@code 1h0m0s}, 500 ms → {@code 500ms}.
   *
   * @param ms a duration, milliseconds, &gt;= 0
   * @return the text
   */
  static String goDuration(long ms) {
    if (ms == 0) {
      return "0s";
    }
    if (ms < 1000) {
      return ms + "ms";
    }
    StringBuilder sb = new StringBuilder();
    long h = ms / 3_600_000;
    long m = ms / 60_000 % 60;
    if (h > 0) {
      sb.append(h).append('h');
    }
    if (h > 0 || m > 0) {
      sb.append(m).append('m');
    }
    sb.append(BigDecimal.valueOf(ms % 60_000, 3).stripTrailingZeros().toPlainString()).append('s');
    return sb.toString();
  }

  /**
   * Grafana's {@code gtime.FormatInterval}, used for {@code $__interval}: the largest whole unit,
   * e.g. {@code 15s}, {@code 1m}, {@code 2h}, {@code 1d}.
   *
   * @param ms an interval, milliseconds, &gt;= 0
   * @return the text
   */
  static String formatInterval(long ms) {
    long[] units = {31_536_000_000L, 86_400_000L, 3_600_000L, 60_000L, 1_000L, 1L};
    String[] names = {"y", "d", "h", "m", "s", "ms"};
    for (int i = 0; i < units.length; i++) {
      if (ms >= units[i]) {
        return ms / units[i] + names[i];
      }
    }
    return "1ms";
  }

  /**
   * Replaces the interval and range variables as the backend's {@code InterpolateVariables} does,
   * in its order ({@code _ms} and {@code _s} forms before the shorter names), each in its
   * {@code $name} and {@code ${name}} forms.
   *
   * @param expr the expression with dashboard variables already replaced
   * @param t the query's timing
   * @param rangeMs the dashboard range, milliseconds
   * @return the expression Grafana sends
   */
  static String interpolateBuiltIns(String expr, Timing t, long rangeMs) {
    long rangeS = Math.round(rangeMs / 1000.0);
    String[][] vars = {
        {"__interval_ms", Long.toString(t.stepMs())},
        {"__interval", formatInterval(t.stepMs())},
        {"__range_ms", Long.toString(rangeMs)},
        {"__range_s", Long.toString(rangeS)},
        {"__range", rangeS + "s"},
        {"__rate_interval_ms", Long.toString(t.rateIntervalMs())},
        {"__rate_interval", goDuration(t.rateIntervalMs())},
    };
    for (String[] v : vars) {
      expr = expr.replace("$" + v[0], v[1]).replace("${" + v[0] + "}", v[1]);
    }
    return expr;
  }

  /**
   * The values chosen for one dashboard variable.
   *
   * @param values the values (for "All": every value of the variable), not empty
   * @param multi the variable's {@code multi}
   * @param includeAll the variable's {@code includeAll}
   */
  record Selection(List<String> values, boolean multi, boolean includeAll) {}

  /**
   * Replaces dashboard variables as {@code templateSrv.replace} with the Prometheus data
   * source's {@code interpolateQueryExpr}: a variable neither multi nor include-All gives its
   * value with {@code \} and {@code '} escaped; otherwise each value is regex-escaped and several
   * are joined as {@code (a|b)}. Names not in {@code vars} (such as {@code $__rate_interval}) are
   * left for the backend.
   *
   * @param text an expression or variable query
   * @param vars variable name → selection
   * @return the interpolated text
   */
  static String interpolate(String text, Map<String, Selection> vars) {
    Matcher m = VARIABLE.matcher(text);
    StringBuilder sb = new StringBuilder();
    while (m.find()) {
      String name = m.group(1) != null ? m.group(1) : m.group(2) != null ? m.group(2) : m.group(3);
      Selection s = vars.get(name);
      String replacement = s == null ? m.group() : format(s);
      m.appendReplacement(sb, Matcher.quoteReplacement(replacement));
    }
    m.appendTail(sb);
    return sb.toString();
  }

  private static String format(Selection s) {
    if (!s.multi() && !s.includeAll()) {
      return regularEscape(s.values().get(0));
    }
    if (s.values().size() == 1) {
      return regexEscape(s.values().get(0));
    }
    StringBuilder sb = new StringBuilder("(");
    for (int i = 0; i < s.values().size(); i++) {
      sb.append(i == 0 ? "" : "|").append(regexEscape(s.values().get(i)));
    }
    return sb.append(')').toString();
  }

  /**
   * {@code prometheusSpecialRegexEscape}: for a regex inside a PromQL string literal, so
   * {@code \} becomes four backslashes and each of {@code $^*{}[]'+?.()|} is preceded by two:
   * {@code 10.0.0.2:8000} → {@code 10\\.0\\.0\\.2:8000}.
   */
  static String regexEscape(String value) {
    String v = value.replace("\\", "\\\\\\\\");
    return REGEX_SPECIAL.matcher(v).replaceAll("\\\\\\\\$0");
  }

  /** {@code prometheusRegularEscape}: {@code \} → {@code \\}, {@code '} → {@code \\'}. */
  static String regularEscape(String value) {
    return value.replace("\\", "\\\\").replace("'", "\\\\'");
  }

  /**
   * A variable query {@code label_values([metric, ]label)}.
   *
   * @param metric the series selector, null for {@code label_values(label)}
   * @param label the label name
   */
  record LabelValuesQuery(String metric, String label) {

    /**
     * @param fromMs dashboard range start, milliseconds since the epoch
     * @param toMs dashboard range end, milliseconds since the epoch
     * @return path and query string of the GET Grafana sends
     */
    String request(long fromMs, long toMs) {
      StringBuilder q = new StringBuilder("/api/v1/label/").append(label).append("/values?");
      if (metric != null) {
        q.append(encodeUriComponent("match[]")).append('=').append(encodeUriComponent(metric))
            .append('&');
      }
      return q.append("start=").append(ceilSeconds(fromMs)).append("&end=")
          .append(ceilSeconds(toMs)).toString();
    }
  }

  /**
   * @param query an interpolated variable query
   * @return the parsed {@code label_values} query
   * @throws IllegalArgumentException for any other variable query (the replay knows only
   *     {@code label_values})
   */
  static LabelValuesQuery labelValues(String query) {
    Matcher m = LABEL_VALUES.matcher(query);
    if (!m.matches()) {
      throw new IllegalArgumentException("not a label_values() variable query: " + query);
    }
    return new LabelValuesQuery(m.group(1), m.group(2));
  }

  /**
   * A variable's {@code regex} applied as {@code metricNamesToVariableValues} does: values it
   * does not match are dropped; a capture group, if any, gives the value.
   *
   * @param jsRegex {@code /pattern/flags}, or empty for none
   * @param value a value the data source returned
   * @return the value to keep, or null to drop it
   */
  static String applyRegex(String jsRegex, String value) {
    if (jsRegex == null || jsRegex.isEmpty()) {
      return value;
    }
    int last = jsRegex.lastIndexOf('/');
    if (!jsRegex.startsWith("/") || last == 0) {
      throw new IllegalArgumentException("variable regex is not /pattern/flags: " + jsRegex);
    }
    String flags = jsRegex.substring(last + 1);
    Pattern p = Pattern.compile(jsRegex.substring(1, last),
        flags.contains("i") ? Pattern.CASE_INSENSITIVE : 0);
    Matcher m = p.matcher(value);
    if (!m.find()) {
      return null;
    }
    return m.groupCount() > 0 && m.group(1) != null ? m.group(1) : value;
  }

  /** Milliseconds since the epoch as Grafana's {@code getPrometheusTime}: whole seconds, up. */
  static long ceilSeconds(long ms) {
    return Math.floorDiv(ms + 999, 1000);
  }

  /** {@code AlignTimeRange} in UTC: down to a multiple of the step. */
  static long alignDown(long ms, long stepMs) {
    return Math.floorDiv(ms, stepMs) * stepMs;
  }

  /** Go's {@code FormatFloat(seconds, 'f', -1, 64)} of a time or step in milliseconds. */
  static String seconds(long ms) {
    return BigDecimal.valueOf(ms, 3).stripTrailingZeros().toPlainString();
  }

  /** A form body as Go's {@code url.Values.Encode}: keys sorted, {@code QueryEscape}d. */
  static String form(Map<String, String> params) {
    StringBuilder sb = new StringBuilder();
    for (Map.Entry<String, String> e : new TreeMap<>(params).entrySet()) {
      sb.append(sb.length() == 0 ? "" : "&").append(queryEscape(e.getKey())).append('=')
          .append(queryEscape(e.getValue()));
    }
    return sb.toString();
  }

  /** Go's {@code url.QueryEscape}: unreserved {@code A-Za-z0-9-_.~} kept, space → {@code +}. */
  static String queryEscape(String s) {
    return percentEncode(s, "-_.~", true);
  }

  /** JavaScript's {@code encodeURIComponent}: unreserved {@code A-Za-z0-9-_.!~*'()} kept. */
  static String encodeUriComponent(String s) {
    return percentEncode(s, "-_.!~*'()", false);
  }

  private static String percentEncode(String s, String keep, boolean plusForSpace) {
    StringBuilder sb = new StringBuilder();
    for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
      int c = b & 0xff;
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
          || keep.indexOf(c) >= 0) {
        sb.append((char) c);
      } else if (c == ' ' && plusForSpace) {
        sb.append('+');
      } else {
        sb.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
            .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
      }
    }
    return sb.toString();
  }
}
