package io.inferlens.analysis.diagnose;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One incident, one primary cause: the rules that merge what the per-target streams found, applied
 * alike to on-demand diagnoses and to the always-on evaluator's open set.
 *
 * <ul>
 *   <li>A VERSION_REGRESSION explains the latency of its target while it lasts: a
 *       PER_REQUEST_SLOWDOWN or WORKLOAD_SHIFT of the same target overlapping it is dropped.
 *   <li>A monitoring gap inside a problem period of the same target is dropped: the period stays
 *       open (stale) across it and carries the story.
 *   <li>When the monitoring gaps of every target that was reporting start within
 *       {@code toleranceMs} of each other (at least two targets), the sender stopped: they are
 *       replaced by one REMOTE_WRITE_STOPPED condition over the targets' common labels.
 * </ul>
 *
 * <p>Stateless.
 */
public final class IncidentMerge {

  private IncidentMerge() {}

  /**
   * @param all diagnoses of several targets over one range; not modified
   * @param reporting the labels of every target that had samples in the range (so that one whose
   *     silence began earlier does not count as still reporting)
   * @param toleranceMs how close the starts of the gaps must be, ms (the evaluator uses twice the
   *     remote-write batch deadline plus one scrape interval)
   * @return the merged diagnoses, oldest first
   */
  public static List<Diagnosis> merge(List<Diagnosis> all, Collection<Map<String, String>> reporting,
      long toleranceMs) {
    List<Diagnosis> out = new ArrayList<>();
    for (Diagnosis d : all) {
      if (!explainedByRegression(d, all)) {
        out.add(d);
      }
    }
    // The sender's silence first: a target with a period open across it is silent too.
    out = senderSilence(out, reporting, toleranceMs);
    out.removeIf(d -> gapInsidePeriod(d, all));
    out.sort((a, b) -> Long.compare(a.startMs(), b.startMs()));
    return out;
  }

  private static boolean overlaps(Diagnosis a, Diagnosis b) {
    long aEnd = a.endMs() == null ? Long.MAX_VALUE : a.endMs();
    long bEnd = b.endMs() == null ? Long.MAX_VALUE : b.endMs();
    return a.startMs() <= bEnd && b.startMs() <= aEnd;
  }

  private static boolean explainedByRegression(Diagnosis d, List<Diagnosis> all) {
    if (d.cause() != Cause.PER_REQUEST_SLOWDOWN && d.cause() != Cause.WORKLOAD_SHIFT) {
      return false;
    }
    for (Diagnosis r : all) {
      if (r.cause() == Cause.VERSION_REGRESSION && r.target().equals(d.target())
          && overlaps(r, d)) {
        return true;
      }
    }
    return false;
  }

  private static boolean gapInsidePeriod(Diagnosis d, List<Diagnosis> all) {
    if (d.cause() != Cause.MONITORING_GAP) {
      return false;
    }
    for (Diagnosis p : all) {
      if (p.cause() != Cause.MONITORING_GAP && p.cause() != Cause.VERSION_REGRESSION
          && p.target().equals(d.target()) && p.startMs() <= d.startMs()
          && (p.endMs() == null || d.endMs() != null && d.endMs() <= p.endMs())) {
        return true;
      }
    }
    return false;
  }

  private static List<Diagnosis> senderSilence(List<Diagnosis> in,
      Collection<Map<String, String>> reporting, long toleranceMs) {
    List<Diagnosis> gaps = new ArrayList<>();
    for (Diagnosis d : in) {
      if (d.cause() == Cause.MONITORING_GAP) {
        gaps.add(d);
      }
    }
    if (gaps.size() < 2) {
      return in;
    }
    gaps.sort((a, b) -> Long.compare(a.startMs(), b.startMs()));
    List<Diagnosis> out = new ArrayList<>(in);
    int i = 0;
    while (i < gaps.size()) {
      int j = i + 1;
      while (j < gaps.size() && gaps.get(j).startMs() - gaps.get(i).startMs() <= toleranceMs) {
        j++;
      }
      List<Diagnosis> cluster = gaps.subList(i, j);
      if (cluster.size() >= 2 && coversAll(cluster, reporting, out)) {
        out.removeAll(cluster);
        out.add(stopped(cluster));
      }
      i = j;
    }
    return out;
  }

  /**
   * Whether every reporting target is silent at the cluster's last start: in the cluster, or in
   * an older gap still running then.
   */
  private static boolean coversAll(List<Diagnosis> cluster,
      Collection<Map<String, String>> reporting, List<Diagnosis> all) {
    long at = cluster.get(cluster.size() - 1).startMs();
    for (Map<String, String> t : reporting) {
      boolean silent = false;
      for (Diagnosis g : all) {
        if (g.cause() == Cause.MONITORING_GAP && g.target().equals(t) && g.startMs() <= at
            && (g.endMs() == null || g.endMs() >= at)) {
          silent = true;
          break;
        }
      }
      if (!silent) {
        for (Diagnosis g : cluster) {
          silent |= g.target().equals(t);
        }
      }
      if (!silent) {
        return false;
      }
    }
    return true;
  }

  private static Diagnosis stopped(List<Diagnosis> cluster) {
    List<Map<String, String>> targets = new ArrayList<>();
    long start = Long.MAX_VALUE;
    Long end = Long.MIN_VALUE;
    for (Diagnosis g : cluster) {
      targets.add(g.target());
      start = Math.min(start, g.startMs());
      end = end == null || g.endMs() == null ? null : Math.max(end, g.endMs());
    }
    String summary = String.format(Locale.ROOT,
        "%s: all %d targets went quiet at once; %s.", Summaries.lead(Cause.REMOTE_WRITE_STOPPED),
        cluster.size(), Cause.REMOTE_WRITE_STOPPED.recommendations().get(0));
    return stoppedDiagnosis(targets, start, end, summary);
  }

  /**
   * The one REMOTE_WRITE_STOPPED condition of a sender all of whose targets went quiet at once,
   * as the always-on evaluator raises it while the silence lasts: the same id and labels as the
   * merge gives the gaps of those targets once data shows them.
   *
   * @param targets the grouping labels of every target the sender was writing; not empty
   * @param lastSampleMs the newest sample received before the silence, ms since the epoch
   * @param startMs where the condition starts, ms (the first step after the last sample)
   * @param endMs where it ended, ms, or null while it holds
   * @return the diagnosis, severity warning, its summary naming the sender (the targets' common
   *     labels, or their count) and the last sample's time
   * @throws IllegalArgumentException if {@code targets} is empty
   */
  public static Diagnosis senderStopped(Collection<Map<String, String>> targets,
      long lastSampleMs, long startMs, Long endMs) {
    if (targets.isEmpty()) {
      throw new IllegalArgumentException("a sender has at least one target");
    }
    Map<String, String> common = commonLabels(targets);
    String who = common.isEmpty() ? "the sender" : "the sender of " + common;
    String summary = String.format(Locale.ROOT,
        "%s: nothing from %s (%d targets) since the last sample at %s; %s.",
        Summaries.lead(Cause.REMOTE_WRITE_STOPPED), who, targets.size(),
        java.time.Instant.ofEpochMilli(lastSampleMs),
        Cause.REMOTE_WRITE_STOPPED.recommendations().get(0));
    return stoppedDiagnosis(targets, startMs, endMs, summary);
  }

  private static Map<String, String> commonLabels(Collection<Map<String, String>> targets) {
    Map<String, String> common = null;
    for (Map<String, String> t : targets) {
      if (common == null) {
        common = new LinkedHashMap<>(t);
      } else {
        common.entrySet().removeIf(e -> !e.getValue().equals(t.get(e.getKey())));
      }
    }
    return common == null ? Map.of() : common;
  }

  private static Diagnosis stoppedDiagnosis(Collection<Map<String, String>> targets, long start,
      Long end, String summary) {
    Map<String, String> common = commonLabels(targets);
    List<ChainLayer> chain = List.of(
        new ChainLayer("latency", "unknown", List.of()),
        new ChainLayer("queue", "unknown", List.of()),
        new ChainLayer("resource", "unknown", List.of()));
    StringBuilder id = new StringBuilder("sender");
    for (String v : common.values()) {
      id.append('~').append(v);
    }
    return new Diagnosis(id + "/remote_write_stopped/" + start, Cause.REMOTE_WRITE_STOPPED,
        "warning", common, start, end, summary, chain,
        Cause.REMOTE_WRITE_STOPPED.recommendations(), false);
  }
}
