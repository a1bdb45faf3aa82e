package io.inferlens.analysis.diagnose;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One sentence per diagnosis that says what is wrong, with the numbers, and what to change, e.g.
 * "Queue saturated at 15–30 waiting, GPU 98%, KV cache 95%; E2E P95 12.1 s vs threshold 4.5 s for
 * 25m: lower --max-num-seqs so each request gets its share of the GPU."
 */
final class Summaries {

  private Summaries() {}

  static String summary(Cause cause, List<ChainLayer> chain, long durationMs) {
    List<String> facts = new ArrayList<>();
    for (ChainLayer layer : chain) {
      for (Evidence e : layer.evidence()) {
        String f = fact(cause, layer.layer(), e);
        if (f != null) {
          facts.add(f);
        }
      }
    }
    StringBuilder sb = new StringBuilder(lead(cause));
    if (!facts.isEmpty()) {
      sb.append(": ").append(String.join(", ", facts));
    }
    sb.append(" for ").append(Diagnoser.duration(roundDuration(durationMs)));
    sb.append("; ").append(cause.recommendations().get(0)).append('.');
    return sb.toString();
  }

  /**
   * @param cause a cause
   * @return the words a summary of that cause opens with, e.g. "KV cache full, requests
   *     preempted"
   */
  static String lead(Cause cause) {
    switch (cause) {
      case CAPACITY_EXHAUSTED: return "Capacity exhausted";
      case CONCURRENCY_LIMIT: return "Requests queue while the GPU has headroom";
      case KV_CACHE_PRESSURE: return "KV cache full, requests preempted";
      case GPU_COMPUTE_BOUND: return "GPU compute bound";
      case PER_REQUEST_SLOWDOWN: return "Each request got slower with no queue and no saturation";
      case WORKLOAD_SHIFT: return "Requests got longer";
      case UPSTREAM_BACKLOG: return "Upstream Kafka backlog growing while inference keeps up";
      case MONITORING_GAP: return "Scrapes missing";
      case REMOTE_WRITE_STOPPED: return "No samples from any target: remote write stopped";
      case VERSION_REGRESSION: return "New model version slower";
      case CARDINALITY_EXPLOSION: return "Series of one metric exploding";
      default: return cause.name();
    }
  }

  private static long roundDuration(long ms) {
    return ms >= 60_000 ? ms / 60_000 * 60_000 : Math.max(1000, ms / 1000 * 1000);
  }

  private static String fact(Cause cause, String layer, Evidence e) {
    switch (e.signal()) {
      case "waiting":
        return e.high() >= 1 ? "queue at " + range(e.low(), e.high()) + " waiting" : null;
      case "gpu_util":
        return e.value() >= 80 ? String.format(Locale.ROOT, "GPU %.0f%%", e.value()) : null;
      case "kv_cache_usage":
        return e.value() >= 0.8 ? String.format(Locale.ROOT, "KV cache %.0f%%", 100 * e.value())
            : null;
      case "preemptions":
        // Only where preemptions are the point: elsewhere a trickle is noise in the sentence.
        return cause == Cause.KV_CACHE_PRESSURE && e.value() > 0
            ? String.format(Locale.ROOT, "%.2g preemptions/s", e.value()) : null;
      case "upstream_backlog":
        return cause == Cause.UPSTREAM_BACKLOG
            ? "Kafka lag " + range(e.low(), e.high()) + " messages" : null;
      default:
        if ("latency".equals(layer) && e.threshold() != null && e.value() > e.threshold()) {
          return label(e.signal()) + " " + versus(e.value(), e.threshold()) + basis(e.basis());
        }
        return null;
    }
  }

  /** Which threshold applied, so a reader knows what the verdict rests on. */
  private static String basis(String basis) {
    if (basis == null) {
      return "";
    }
    switch (basis) {
      case "slo": return " (SLO)";
      case "baseline": return " (learned baseline)";
      case "static": return " (static limit, no baseline yet)";
      default: return "";
    }
  }

  private static String label(String signal) {
    return signal.toUpperCase(Locale.ROOT).replace("_P", " P");
  }

  private static String seconds(double s) {
    return seconds(s, 0);
  }

  /** @param extra decimals beyond the usual (0 for ms, 1 for s) */
  private static String seconds(double s, int extra) {
    return s < 1 ? String.format(Locale.ROOT, "%." + extra + "f ms", s * 1000)
        : String.format(Locale.ROOT, "%." + (1 + extra) + "f s", s);
  }

  /**
   * "value vs threshold value", with as many more decimals (up to three) as it takes for a
   * breach not to read as equal to its threshold ("2.0 s vs threshold 2.0 s" for 2.02 s).
   */
  private static String versus(double value, double threshold) {
    String a = seconds(value);
    String b = seconds(threshold);
    for (int extra = 1; a.equals(b) && extra <= 3; extra++) {
      a = seconds(value, extra);
      b = seconds(threshold, extra);
    }
    return a + " vs threshold " + b;
  }

  private static String range(double lo, double hi) {
    long a = Math.round(lo);
    long b = Math.round(hi);
    return a == b ? Long.toString(a) : a + "–" + b;
  }
}
