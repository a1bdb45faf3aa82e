package io.inferlens.analysis.diagnose;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Whether a diagnosis's cause and summary agree with its latency → queue → resource chain: a
 * summary that says "no queue and no saturation" over a resource layer that says
 * {@code saturated} is a defect, whatever the data. Per cause:
 *
 * <ul>
 *   <li>every latency cause (all but UPSTREAM_BACKLOG and the store-level ones) has its latency
 *       layer {@code breached};
 *   <li>PER_REQUEST_SLOWDOWN and WORKLOAD_SHIFT: neither queue nor resource {@code saturated};
 *   <li>CAPACITY_EXHAUSTED: queue and resource {@code saturated};
 *   <li>CONCURRENCY_LIMIT: queue {@code saturated}, resource not;
 *   <li>GPU_COMPUTE_BOUND: resource {@code saturated}, queue not;
 *   <li>KV_CACHE_PRESSURE: resource {@code saturated} (or {@code unknown} without GPU and KV
 *       gauges, which cannot happen for this cause), a {@code kv_cache_usage} row whose 95th
 *       percentile is at least 0.9 and a {@code preemptions} row above 0/s;
 *   <li>the summary opens with the cause's words.
 * </ul>
 *
 * <p>Stateless; used by tests over every diagnosis they produce.
 */
public final class ChainConsistency {

  /** KV-cache usage (ratio) a KV_CACHE_PRESSURE diagnosis must reach at its 95th percentile. */
  static final double KV_FULL = 0.9;

  private ChainConsistency() {}

  /**
   * @param d a diagnosis
   * @return what disagrees, one line each; empty when the cause, summary and chain agree
   */
  public static List<String> problems(Diagnosis d) {
    return problems(d.cause(), d.chain(), d.summary());
  }

  /**
   * @param cause the diagnosis's cause
   * @param chain its layers ({@code latency}, {@code queue}, {@code resource}), as served
   * @param summary its summary sentence
   * @return what disagrees, one line each; empty when they agree
   */
  public static List<String> problems(Cause cause, List<ChainLayer> chain, String summary) {
    Map<String, String> verdict = new HashMap<>();
    Map<String, Evidence> ev = new HashMap<>();
    for (ChainLayer l : chain) {
      verdict.put(l.layer(), l.verdict());
      for (Evidence e : l.evidence()) {
        ev.put(e.signal(), e);
      }
    }
    boolean queue = "saturated".equals(verdict.get("queue"));
    boolean resource = "saturated".equals(verdict.get("resource"));
    List<String> out = new ArrayList<>();
    switch (cause) {
      case PER_REQUEST_SLOWDOWN:
      case WORKLOAD_SHIFT:
        if (queue || resource) {
          out.add(cause + " with queue " + verdict.get("queue") + ", resource "
              + verdict.get("resource"));
        }
        break;
      case CAPACITY_EXHAUSTED:
        if (!queue || !resource) {
          out.add(cause + " without both: queue " + verdict.get("queue") + ", resource "
              + verdict.get("resource"));
        }
        break;
      case CONCURRENCY_LIMIT:
        if (!queue || resource) {
          out.add(cause + " with queue " + verdict.get("queue") + ", resource "
              + verdict.get("resource"));
        }
        break;
      case GPU_COMPUTE_BOUND:
        if (queue || !resource) {
          out.add(cause + " with queue " + verdict.get("queue") + ", resource "
              + verdict.get("resource"));
        }
        break;
      case KV_CACHE_PRESSURE: {
        Evidence kv = ev.get(Indicator.KV_CACHE_USAGE.key());
        Evidence pre = ev.get(Indicator.PREEMPTIONS.key());
        if (!resource) {
          out.add(cause + " with resource " + verdict.get("resource"));
        }
        if (kv == null || kv.high() < KV_FULL) {
          out.add(cause + " without a full KV cache: " + kv);
        }
        if (pre == null || !(pre.value() > 0)) {
          out.add(cause + " without preemptions: " + pre);
        }
        break;
      }
      default:
        break;
    }
    boolean latencyCause = cause == Cause.PER_REQUEST_SLOWDOWN || cause == Cause.WORKLOAD_SHIFT
        || cause == Cause.CAPACITY_EXHAUSTED || cause == Cause.CONCURRENCY_LIMIT
        || cause == Cause.GPU_COMPUTE_BOUND || cause == Cause.KV_CACHE_PRESSURE;
    if (latencyCause && !"breached".equals(verdict.get("latency"))) {
      out.add(cause + " with latency " + verdict.get("latency"));
    }
    if (summary == null || !summary.startsWith(Summaries.lead(cause))) {
      out.add(cause + " summarised as \"" + summary + "\"");
    }
    return out;
  }
}
