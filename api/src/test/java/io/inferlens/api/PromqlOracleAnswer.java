package io.inferlens.api;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One server's answer to one query of {@link PromqlOracleTest}, parsed from Prometheus's HTTP API
 * shapes (docs/querying/api.md at v2.42.0): {@code {"status":"success","data":{"resultType":
 * "matrix|vector|scalar|string","result":…}}} or {@code {"status":"error","errorType":…,
 * "error":…}}. A body that is neither (a 404 page, bad JSON, missing fields) is an answer too:
 * {@link #malformed} says why, and it matches nothing.
 *
 * @param httpStatus the HTTP status code
 * @param resultType {@code matrix}, {@code vector}, {@code scalar} or {@code string}; null for
 *     an error
 * @param series the result: matrix and vector series with their label sets; a scalar or string
 *     as one series with no labels
 * @param errorType Prometheus's {@code errorType} for an error answer, else null
 * @param error the error message, else null
 * @param malformed why the body is not a valid answer, else null
 */
record PromqlOracleAnswer(int httpStatus, String resultType, List<Series> series,
    String errorType, String error, String malformed) {

  private static final ObjectMapper JSON = new ObjectMapper()
      .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

  /**
   * One result series.
   *
   * @param labels the label set, sorted by name ({@code __name__} included when present)
   * @param timestampsMs sample timestamps, Unix ms, in answer order
   * @param values sample values ({@code NaN}, {@code ±Inf} as Prometheus writes them)
   * @param text the value of a {@code string} result, else null
   */
  record Series(TreeMap<String, String> labels, long[] timestampsMs, double[] values,
      String text) {

    /** @return the label set in PromQL notation, e.g. {@code {__name__="up", job="a"}} */
    String labelText() {
      StringBuilder sb = new StringBuilder("{");
      for (Map.Entry<String, String> e : labels.entrySet()) {
        if (sb.length() > 1) {
          sb.append(", ");
        }
        sb.append(e.getKey()).append("=\"").append(e.getValue().replace("\\", "\\\\")
            .replace("\"", "\\\"")).append('"');
      }
      return sb.append('}').toString();
    }
  }

  /** @return whether this is a well-formed {@code "status":"success"} answer */
  boolean success() {
    return malformed == null && resultType != null;
  }

  /**
   * Parses a response body.
   *
   * @param httpStatus the HTTP status code
   * @param body the response body
   * @return the answer; never throws for bad input, which becomes {@link #malformed}
   */
  static PromqlOracleAnswer parse(int httpStatus, String body) {
    JsonNode root;
    try {
      root = JSON.readTree(body);
    } catch (Exception e) {
      return malformed(httpStatus, "not JSON: " + abbreviate(body, 200));
    }
    if (root == null || !root.isObject()) {
      return malformed(httpStatus, "not a JSON object: " + abbreviate(body, 200));
    }
    String status = root.path("status").asText("");
    if (status.equals("error")) {
      if (!root.path("errorType").isTextual()) {
        return malformed(httpStatus, "an error without errorType: " + abbreviate(body, 200));
      }
      if (httpStatus < 400) {
        return malformed(httpStatus, "an error with HTTP status " + httpStatus);
      }
      return new PromqlOracleAnswer(httpStatus, null, List.of(), root.get("errorType").asText(),
          root.path("error").asText(""), null);
    }
    if (!status.equals("success")) {
      return malformed(httpStatus, "status is neither success nor error: "
          + abbreviate(body, 200));
    }
    if (httpStatus != 200) {
      return malformed(httpStatus, "a success with HTTP status " + httpStatus);
    }
    JsonNode data = root.path("data");
    String type = data.path("resultType").asText("");
    JsonNode result = data.path("result");
    try {
      List<Series> out = new ArrayList<>();
      switch (type) {
        case "matrix":
          for (JsonNode s : array(result)) {
            JsonNode values = array(s.path("values"));
            long[] ts = new long[values.size()];
            double[] vs = new double[values.size()];
            for (int i = 0; i < values.size(); i++) {
              ts[i] = timestampMs(values.get(i));
              vs[i] = value(values.get(i));
            }
            out.add(new Series(labels(s.path("metric")), ts, vs, null));
          }
          break;
        case "vector":
          for (JsonNode s : array(result)) {
            out.add(new Series(labels(s.path("metric")), new long[] {timestampMs(s.get("value"))},
                new double[] {value(s.get("value"))}, null));
          }
          break;
        case "scalar":
          out.add(new Series(new TreeMap<>(), new long[] {timestampMs(result)},
              new double[] {value(result)}, null));
          break;
        case "string":
          out.add(new Series(new TreeMap<>(), new long[] {timestampMs(result)}, new double[1],
              pair(result).get(1).asText()));
          break;
        default:
          return malformed(httpStatus, "unknown resultType \"" + type + "\"");
      }
      return new PromqlOracleAnswer(httpStatus, type, out, null, null, null);
    } catch (IllegalArgumentException e) {
      return malformed(httpStatus, e.getMessage() + " in " + abbreviate(body, 200));
    }
  }

  /** @return the answer of a request that got no HTTP response (HTTP status 0) */
  static PromqlOracleAnswer noAnswer(String why) {
    return malformed(0, why);
  }

  private static PromqlOracleAnswer malformed(int httpStatus, String why) {
    return new PromqlOracleAnswer(httpStatus, null, List.of(), null, null, why);
  }

  private static JsonNode array(JsonNode n) {
    if (!n.isArray()) {
      throw new IllegalArgumentException("expected an array, got " + n);
    }
    return n;
  }

  private static JsonNode pair(JsonNode n) {
    if (n == null || !n.isArray() || n.size() != 2) {
      throw new IllegalArgumentException("expected a [timestamp, \"value\"] pair, got " + n);
    }
    return n;
  }

  private static TreeMap<String, String> labels(JsonNode metric) {
    if (!metric.isObject()) {
      throw new IllegalArgumentException("expected a metric object, got " + metric);
    }
    TreeMap<String, String> out = new TreeMap<>();
    for (Map.Entry<String, JsonNode> e : metric.properties()) {
      out.put(e.getKey(), e.getValue().asText());
    }
    return out;
  }

  /** Seconds as a JSON number with up to 3 decimals, to Unix ms. */
  private static long timestampMs(JsonNode pair) {
    JsonNode t = pair(pair).get(0);
    if (!t.isNumber()) {
      throw new IllegalArgumentException("a timestamp must be a JSON number, got " + t);
    }
    return t.decimalValue().movePointRight(3).setScale(0, RoundingMode.HALF_EVEN)
        .longValueExact();
  }

  /** A sample value: a JSON string in Go's float syntax, {@code NaN}, {@code +Inf}, … */
  private static double value(JsonNode pair) {
    JsonNode v = pair(pair).get(1);
    if (!v.isTextual()) {
      throw new IllegalArgumentException("a sample value must be a JSON string, got " + v);
    }
    switch (v.asText()) {
      case "NaN": return Double.NaN;
      case "+Inf": case "Inf": return Double.POSITIVE_INFINITY;
      case "-Inf": return Double.NEGATIVE_INFINITY;
      default:
        try {
          return Double.parseDouble(v.asText());
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException("not a float: " + v);
        }
    }
  }

  /**
   * A compact rendering for reports: the error, or the result type and each series with its
   * samples as {@code +offset:value} relative to {@code baseMs}.
   *
   * @param maxChars cut (with "…") past this many characters
   */
  String render(long baseMs, int maxChars) {
    StringBuilder sb = new StringBuilder();
    if (malformed != null) {
      sb.append(httpStatus == 0 ? "no HTTP response" : "HTTP " + httpStatus)
          .append(", not a valid answer: ").append(malformed);
    } else if (!success()) {
      sb.append("HTTP ").append(httpStatus).append(" error ").append(errorType).append(": ")
          .append(error);
    } else {
      sb.append(resultType).append(", ").append(series.size()).append(" series");
      for (Series s : series) {
        if (sb.length() > maxChars) {
          break;
        }
        sb.append("\n    ").append(resultType.equals("scalar") || resultType.equals("string")
            ? "" : s.labelText() + " ");
        for (int i = 0; i < s.timestampsMs().length && sb.length() <= maxChars; i++) {
          sb.append(i == 0 ? "" : " ").append(offset(s.timestampsMs()[i] - baseMs)).append(':')
              .append(s.text() != null ? "\"" + s.text() + "\"" : format(s.values()[i]));
        }
      }
    }
    return abbreviate(sb.toString(), maxChars);
  }

  /** @return ms relative to the base as {@code +1h2m3.5s} */
  static String offset(long ms) {
    StringBuilder sb = new StringBuilder(ms < 0 ? "-" : "+");
    long a = Math.abs(ms);
    if (a >= 3_600_000) {
      sb.append(a / 3_600_000).append('h');
      a %= 3_600_000;
    }
    if (a >= 60_000) {
      sb.append(a / 60_000).append('m');
      a %= 60_000;
    }
    if (a > 0 || sb.length() == 1) {
      sb.append(BigDecimal.valueOf(a).movePointLeft(3).stripTrailingZeros().toPlainString())
          .append('s');
    }
    return sb.toString();
  }

  static String format(double v) {
    if (Double.isNaN(v)) {
      return "NaN";
    }
    if (Double.isInfinite(v)) {
      return v > 0 ? "+Inf" : "-Inf";
    }
    return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : Double.toString(v);
  }

  static String abbreviate(String s, int max) {
    return s.length() <= max ? s : s.substring(0, max) + "…";
  }
}
