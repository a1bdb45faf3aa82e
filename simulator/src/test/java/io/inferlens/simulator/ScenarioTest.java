package io.inferlens.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Scenario properties, checked by stepping the model in simulated time (no sleeping): one
 * simulated hour per scenario, observed every 15 s like a Prometheus scrape.
 */
class ScenarioTest {

  private static final double HOUR = 3600;
  private static final long STEPS_PER_SCRAPE = Math.round(15 / SimulationModel.STEP_SECONDS);

  /** What a scraper sees of engine 0 every 15 simulated seconds. */
  private record Scrape(double t, int waiting, int running, double kv, int gpu, long preemptions,
      long[] e2e, long[] ttft, double itlSum, long itlCount, long promptTokens, long requests,
      long lag) {}

  private static List<Scrape> play(Scenario s, long seed) {
    SimulationModel m = new SimulationModel(s, HOUR, seed, 2);
    List<Scrape> out = new ArrayList<>();
    while (m.nowSeconds() < HOUR) {
      m.advance(STEPS_PER_SCRAPE);
      SimulationModel.Engine e = m.engines().get(0);
      out.add(new Scrape(m.nowSeconds(), e.waiting(), e.running(), e.kvUsage(), e.gpuUtilPercent(),
          e.preemptions(), e.e2e().cumulative(), e.ttft().cumulative(), e.itl().sum(),
          e.itl().count(), e.promptTokens(), e.e2e().count(), m.kafka().lagSum()));
    }
    return out;
  }

  /** Scrapes with {@code from <= t/HOUR < to}. */
  private static List<Scrape> window(List<Scrape> all, double from, double to) {
    return all.stream().filter(x -> x.t() / HOUR >= from && x.t() / HOUR < to).toList();
  }

  private static double avg(List<Scrape> w, java.util.function.ToDoubleFunction<Scrape> f) {
    return w.stream().mapToDouble(f).average().orElseThrow();
  }

  private static Scrape first(List<Scrape> w) {
    return w.get(0);
  }

  private static Scrape last(List<Scrape> w) {
    return w.get(w.size() - 1);
  }

  private static double e2eP95(List<Scrape> w) {
    return Histogram.quantile(0.95, Buckets.E2E, last(w).e2e(), first(w).e2e());
  }

  private static double ttftP95(List<Scrape> w) {
    return Histogram.quantile(0.95, Buckets.TTFT, last(w).ttft(), first(w).ttft());
  }

  private static double meanItl(List<Scrape> w) {
    return (last(w).itlSum() - first(w).itlSum()) / (last(w).itlCount() - first(w).itlCount());
  }

  private static double promptPerRequest(List<Scrape> w) {
    return (double) (last(w).promptTokens() - first(w).promptTokens())
        / (last(w).requests() - first(w).requests());
  }

  @Test
  void healthyHasNoQueueAndModerateGpu() {
    List<Scrape> all = play(Scenario.HEALTHY, 11);
    long queued = all.stream().filter(x -> x.waiting() > 0).count();
    assertThat((double) queued / all.size()).isLessThan(0.05);
    assertThat(all.stream().mapToInt(Scrape::gpu).max().orElseThrow()).isLessThan(90);
    List<Scrape> w = window(all, 0.05, 1.0);
    assertThat(avg(w, Scrape::gpu)).isBetween(35.0, 65.0);
    assertThat(avg(w, Scrape::kv)).isBetween(0.12, 0.35);
    assertThat(meanItl(w)).isBetween(0.030, 0.042);
    assertThat(e2eP95(w)).isBetween(2.0, 4.5);
  }

  @Test
  void peakSaturationFillsQueueGpuAndKvAndLatencyTriples() {
    List<Scrape> all = play(Scenario.PEAK_SATURATION, 12);
    List<Scrape> healthy = window(all, 0.02, Scenario.HEALTHY_PHASE);
    List<Scrape> saturated = window(all, 0.4, 1.0);
    assertThat(avg(healthy, Scrape::waiting)).isLessThan(0.5);
    assertThat(avg(saturated, Scrape::waiting)).isBetween(15.0, 30.0);
    assertThat(avg(saturated, Scrape::gpu)).isGreaterThanOrEqualTo(95.0);
    assertThat(avg(saturated, Scrape::kv)).isGreaterThanOrEqualTo(0.9);
    double before = e2eP95(healthy);
    double after = e2eP95(saturated);
    assertThat(after).as("e2e P95 %.2f s -> %.2f s", before, after)
        .isGreaterThanOrEqualTo(3 * before);
    assertThat(meanItl(healthy)).isBetween(0.030, 0.042);
    assertThat(meanItl(saturated)).isBetween(0.070, 0.095);
  }

  @Test
  void kvPressureKeepsCacheFullAndPreemptionsRising() {
    List<Scrape> all = play(Scenario.KV_PRESSURE, 13);
    List<Scrape> before = window(all, 0.02, Scenario.HEALTHY_PHASE);
    List<Scrape> after = window(all, 0.4, 1.0);
    assertThat(last(before).preemptions()).isZero();
    assertThat(avg(after, Scrape::kv)).isGreaterThanOrEqualTo(0.9);
    long p40 = first(after).preemptions();
    long p70 = window(all, 0.7, 1.0).get(0).preemptions();
    long p100 = last(after).preemptions();
    assertThat(p40).isLessThan(p70);
    assertThat(p70).isLessThan(p100);
    assertThat(meanItl(after)).isGreaterThan(1.2 * meanItl(before));
    assertThat(avg(after, Scrape::waiting)).as("modest queue").isBetween(1.0, 15.0);
  }

  @Test
  void perRequestSlowdownRaisesItlWithoutQueueOrSaturation() {
    List<Scrape> all = play(Scenario.PER_REQUEST_SLOWDOWN, 14);
    List<Scrape> before = window(all, 0.02, 0.3);
    List<Scrape> after = window(all, 0.4, 1.0);
    assertThat(meanItl(after)).isGreaterThan(1.8 * meanItl(before));
    assertThat(avg(after, Scrape::waiting)).isLessThan(1.0);
    assertThat(avg(after, Scrape::gpu)).isLessThan(90.0);
    assertThat(avg(after, Scrape::kv)).isLessThan(0.9);
  }

  @Test
  void longPromptsShiftTheWorkloadAndRaiseTtft() {
    List<Scrape> all = play(Scenario.LONG_PROMPTS, 15);
    List<Scrape> before = window(all, 0.02, 0.3);
    List<Scrape> after = window(all, 0.4, 1.0);
    assertThat(promptPerRequest(after)).isGreaterThan(3 * promptPerRequest(before));
    assertThat(ttftP95(after)).isGreaterThan(1.8 * ttftP95(before));
    assertThat(avg(after, Scrape::waiting)).isLessThan(1.0);
    assertThat(avg(after, Scrape::gpu)).isLessThan(90.0);
    assertThat(avg(after, Scrape::kv)).isLessThan(0.9);
  }

  @Test
  void kafkaBacklogLagRisesMonotonicallyWhileVllmStaysHealthy() {
    List<Scrape> all = play(Scenario.KAFKA_BACKLOG, 16);
    List<Scrape> before = window(all, 0.02, Scenario.HEALTHY_PHASE);
    List<Scrape> after = window(all, 0.3, 1.0);
    assertThat(before.stream().mapToLong(Scrape::lag).max().orElseThrow()).isLessThan(50);
    for (int i = 1; i < after.size(); i++) {
      assertThat(after.get(i).lag()).as("lag at %.0f s", after.get(i).t())
          .isGreaterThan(after.get(i - 1).lag());
    }
    assertThat(last(after).lag()).isGreaterThan(3000);
    assertThat(avg(after, Scrape::waiting)).isLessThan(0.5);
    assertThat(avg(after, Scrape::gpu)).isLessThan(90.0);
    assertThat(e2eP95(after)).isLessThan(1.5 * e2eP95(before));
  }

  @Test
  void scrapeGapScheduleMissesAtLeastThreeConsecutiveScrapes() {
    Scenario s = Scenario.SCRAPE_GAP;
    int longestRun = 0;
    int run = 0;
    int failedBeforeDegrading = 0;
    int failed = 0;
    int scrapes = 0;
    for (double t = 7.5; t < HOUR; t += 15) { // scrapes at an arbitrary phase
      boolean up = s.metricsAvailable(t, HOUR);
      scrapes++;
      if (!up) {
        failed++;
        if (t < Scenario.HEALTHY_PHASE * HOUR) {
          failedBeforeDegrading++;
        }
        run++;
        longestRun = Math.max(longestRun, run);
      } else {
        run = 0;
      }
    }
    assertThat(failedBeforeDegrading).isZero();
    assertThat(longestRun).isGreaterThanOrEqualTo(3);
    assertThat(failed).isLessThan(scrapes / 4);
    for (Scenario other : Scenario.values()) {
      if (other != s) {
        for (double t = 0; t < HOUR; t += 15) {
          assertThat(other.metricsAvailable(t, HOUR)).isTrue();
        }
      }
    }
    // the model exposes the same schedule
    SimulationModel m = new SimulationModel(s, HOUR, 1, 2);
    m.advance(Math.round((0.2 * HOUR + Scenario.GAP_OFFSET_S + 30) / SimulationModel.STEP_SECONDS));
    assertThat(m.metricsAvailable()).isFalse();
  }

  @Test
  void scenarioNamesResolve() {
    for (Scenario s : Scenario.values()) {
      assertThat(Scenario.byId(s.id())).isSameAs(s);
      assertThat(s.description()).isNotBlank();
    }
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> Scenario.byId("nope"))
        .hasMessageContaining("peak-saturation");
  }
}
