package io.inferlens.analysis.promql.ast;

import static org.assertj.core.api.Assertions.assertThat;

import io.inferlens.analysis.promql.parse.Parser;
import org.junit.jupiter.api.Test;

/** Expected texts are Prometheus 2.42's {@code /api/v1/format_query} answers for the queries. */
class PrettyPrinterTest {

  private static String pretty(String q) {
    return Printer.pretty(Parser.parse(q));
  }

  @Test
  void shortExpressionsStayOnOneLine() {
    assertThat(pretty("sum by(job)(rate(foo[5m]))")).isEqualTo("sum by (job) (rate(foo[5m]))");
  }

  @Test
  void aggregationSplitsItsArgumentsOntoIndentedLines() {
    assertThat(pretty("sum by (job, instance) (rate(http_requests_total{job=\"api-server\","
        + "instance=~\"10\\\\.0\\\\.0\\\\..*\",code!~\"5..\"}[5m]))")).isEqualTo(
        "sum by (job, instance) (\n"
            + "  rate(http_requests_total{code!~\"5..\",instance=~\"10\\\\.0\\\\.0\\\\..*\","
            + "job=\"api-server\"}[5m])\n"
            + ")");
    assertThat(pretty("topk(5, rate(http_requests_total{job=\"a-very-long-job-name-that-goes-on"
        + "-and-on\",instance=\"some-host.example.com:9090\"}[5m]))")).isEqualTo(
        "topk(\n"
            + "  5,\n"
            + "  rate(\n"
            + "    http_requests_total{instance=\"some-host.example.com:9090\","
            + "job=\"a-very-long-job-name-that-goes-on-and-on\"}[5m]\n"
            + "  )\n"
            + ")");
  }

  @Test
  void unaryStaysOnItsOperandsLineAndSubquerySuffixFollowsTheSplitExpression() {
    assertThat(pretty("-sum by (job) (rate(http_requests_total{job=\"a-very-long-job-name-that-"
        + "goes-on-and-on\",instance=\"some-host.example.com:9090\"}[5m]))")).isEqualTo(
        "-sum by (job) (\n"
            + "  rate(\n"
            + "    http_requests_total{instance=\"some-host.example.com:9090\","
            + "job=\"a-very-long-job-name-that-goes-on-and-on\"}[5m]\n"
            + "  )\n"
            + ")");
    assertThat(pretty("rate(http_requests_total{job=\"a-very-long-job-name-that-goes-on-and-on\","
        + "instance=\"some-host.example.com:9090\"}[5m])[30m:1m]")).isEqualTo(
        "rate(\n"
            + "  http_requests_total{instance=\"some-host.example.com:9090\","
            + "job=\"a-very-long-job-name-that-goes-on-and-on\"}[5m]\n"
            + ")[30m:1m]");
  }

  @Test
  void binaryPutsItsOperatorBetweenIndentedOperandsAndCountsBytes() {
    assertThat(pretty("http_requests_total{job=\"a-very-long-job-name-that-goes-on-and-on\"} > "
        + "bool on (job) group_left (x) http_requests_total{job=\"another-long-job-name\"}"))
        .isEqualTo("  http_requests_total{job=\"a-very-long-job-name-that-goes-on-and-on\"}\n"
            + "> bool on (job) group_left (x)\n"
            + "  http_requests_total{job=\"another-long-job-name\"}");
    // 82 characters, but more than 100 UTF-8 bytes: split, as Go's len counts bytes.
    String e47 = "é".repeat(47);
    String e19 = "é".repeat(19);
    assertThat(pretty("foo{a=\"" + e47 + "\"} + bar{b=\"" + e19 + "\"}")).isEqualTo(
        "  foo{a=\"" + e47 + "\"}\n+\n  bar{b=\"" + e19 + "\"}");
  }
}
