package io.inferlens.api;

import io.inferlens.analysis.diagnose.ChainLayer;
import io.inferlens.analysis.diagnose.Diagnoser;
import io.inferlens.analysis.diagnose.Diagnosis;
import io.inferlens.analysis.diagnose.Evidence;
import io.inferlens.analysis.incident.Incident;
import io.inferlens.analysis.incident.IncidentNote;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * An incident as a Markdown postmortem (CommonMark with GitHub tables): title (cause, target),
 * times (start, end or "open", duration), summary, the latency → queue → resource chain as an
 * evidence table, recommendations, notes with their times and similar past incidents.
 */
final class IncidentMarkdown {

  private IncidentMarkdown() {}

  /**
   * @param inc the incident
   * @param similar similar past incidents, closest first
   * @param nowMs the present, ms, for the duration of an open incident
   * @return the Markdown text, lines ending in {@code \n}
   */
  static String render(Incident inc, List<Incident> similar, long nowMs) {
    Diagnosis d = inc.diagnosis();
    StringBuilder b = new StringBuilder();
    b.append("# ").append(d.cause().name()).append(" on ").append(target(d.target()))
        .append("\n\n");
    b.append("- **Id:** `").append(d.id()).append("`\n");
    b.append("- **Severity:** ").append(d.severity()).append(d.stale() ? " (stale: no recent data)" : "")
        .append("\n");
    b.append("- **Start:** ").append(Instant.ofEpochMilli(d.startMs())).append("\n");
    b.append("- **End:** ").append(d.endMs() == null ? "open" : Instant.ofEpochMilli(d.endMs()))
        .append("\n");
    long end = d.endMs() == null ? nowMs : d.endMs();
    b.append("- **Duration:** ").append(Diagnoser.duration(Math.max(0, end - d.startMs())))
        .append(d.endMs() == null ? " so far" : "").append("\n");
    b.append("- **Opened:** ").append(Instant.ofEpochMilli(inc.openedAtMs()));
    if (inc.resolvedAtMs() != null) {
      b.append(", **resolved:** ").append(Instant.ofEpochMilli(inc.resolvedAtMs()));
    }
    b.append("\n\n## Summary\n\n").append(d.summary()).append("\n\n");
    // The chain's own layers: latency → queue → resource, or a store-level finding's one layer.
    java.util.StringJoiner layers = new java.util.StringJoiner(" → ");
    d.chain().forEach(l -> layers.add(l.layer()));
    b.append("## Evidence (").append(layers).append(")\n\n");
    b.append("| Layer | Verdict | Signal | Value | Threshold | Basis | Baseline | Unit | PromQL |\n");
    b.append("|---|---|---|---|---|---|---|---|---|\n");
    for (ChainLayer l : d.chain()) {
      if (l.evidence().isEmpty()) {
        b.append("| ").append(cell(l.layer())).append(" | ").append(cell(l.verdict()))
            .append(" | | | | | | | |\n");
      }
      for (Evidence e : l.evidence()) {
        b.append("| ").append(cell(l.layer())).append(" | ").append(cell(l.verdict()))
            .append(" | ").append(cell(e.signal()))
            .append(" | ").append(num(e.value()))
            .append(" | ").append(e.threshold() == null ? "" : num(e.threshold()))
            .append(" | ").append(cell(e.basis()))
            .append(" | ").append(e.baseline() == null ? "" : num(e.baseline()))
            .append(" | ").append(cell(e.unit()))
            .append(" | ").append(e.promql() == null || e.promql().isEmpty() ? ""
                : "`" + cell(e.promql()).replace("`", "'") + "`")
            .append(" |\n");
      }
    }
    b.append("\n## Recommendations\n\n");
    if (d.recommendations().isEmpty()) {
      b.append("None.\n");
    }
    for (String r : d.recommendations()) {
      int nl = r.indexOf('\n');
      if (nl < 0) {
        b.append("- ").append(r).append("\n");
        continue;
      }
      // Prose, then configuration to paste (YAML): fenced inside the item, indentation kept.
      b.append("- ").append(r, 0, nl).append("\n\n  ```yaml\n");
      for (String line : r.substring(nl + 1).split("\n", -1)) {
        b.append("  ").append(line).append("\n");
      }
      b.append("  ```\n");
    }
    b.append("\n## Notes\n\n");
    if (inc.notes().isEmpty()) {
      b.append("None.\n");
    }
    for (IncidentNote n : inc.notes()) {
      b.append("- ").append(Instant.ofEpochMilli(n.atMs()));
      if (!n.author().isEmpty()) {
        b.append(" (").append(n.author()).append(")");
      }
      b.append(": ").append(n.text().replace("\n", "\n  ")).append("\n");
    }
    b.append("\n## Similar past incidents\n\n");
    if (similar.isEmpty()) {
      b.append("None.\n");
    }
    for (Incident s : similar) {
      Diagnosis o = s.diagnosis();
      b.append("- ").append(Instant.ofEpochMilli(o.startMs())).append(" ")
          .append(o.cause().name()).append(" on ").append(target(o.target()))
          .append(" (").append(o.severity()).append("): ").append(o.summary())
          .append(" — `").append(o.id()).append("`\n");
    }
    return b.toString();
  }

  private static String target(Map<String, String> labels) {
    return labels.entrySet().stream().map(e -> e.getKey() + "=\"" + e.getValue() + "\"")
        .collect(Collectors.joining(", ", "{", "}"));
  }

  /** A table cell: pipes escaped, line breaks flattened. */
  private static String cell(String s) {
    return s == null ? "" : s.replace("|", "\\|").replace("\n", " ");
  }

  private static String num(double v) {
    if (Double.isNaN(v) || Double.isInfinite(v)) {
      return "";
    }
    return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v)
        : String.format(java.util.Locale.ROOT, "%.4g", v);
  }
}
