package io.inferlens.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.inferlens.simulator.Exposition;
import io.inferlens.simulator.Scenario;
import io.inferlens.simulator.SimulationModel;
import io.inferlens.simulator.Stack;
import io.inferlens.proto.prometheus.Remote.WriteRequest;
import io.inferlens.proto.prometheus.Types.Label;
import io.inferlens.proto.prometheus.Types.Sample;
import io.inferlens.proto.prometheus.Types.TimeSeries;
import java.net.URI;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Loads a server with data without Prometheus: plays simulator scenarios in simulated time and
 * remote-writes what a 15 s scrape of {@code /metrics} (the engine, as one simulator
 * {@link Stack} renders it), {@code /dcgm/metrics} and optionally {@code /kafka/metrics} would
 * have returned, with timestamps ending at a given wall-clock time; or writes synthetic
 * histograms for long ranges. Hours of data take seconds.
 */
final class SimulatedWrites {

  static final long SCRAPE_MS = 15_000;

  /** Samples collected per series (label set in Prometheus's sorted order). */
  private final Map<String, TimeSeries.Builder> pending = new LinkedHashMap<>();
  private int pendingSamples;
  private final URI base;
  /** Headers sent with every write, alternating names and values (a tenant's X-Scope-OrgID). */
  private final String[] headers;
  long samplesWritten;

  SimulatedWrites(URI base) {
    this(base, new String[0]);
  }

  /** Writes with {@code headers} (alternating names and values) on every request. */
  SimulatedWrites(URI base, String... headers) {
    this.base = base;
    this.headers = headers.clone();
  }

  /** A scenario being played: its model, its stack and the timestamp of its next scrape. */
  private static final class Play {
    final SimulationModel model;
    final Stack stack;
    final String host;
    final String modelName;
    final double created;
    final boolean kafka;
    /** The stack the engine is upgraded to at {@link #upgradeAtS} simulated seconds, or null. */
    Stack upgradeTo;
    double upgradeAtS = Double.POSITIVE_INFINITY;
    /** The engine's {@code /metrics} is not scraped from here (ms) to {@link #silentToMs}. */
    long silentFromMs = Long.MAX_VALUE;
    long silentToMs = Long.MIN_VALUE;
    /** Whether the host's dcgm-exporter is scraped with it (one play per host does). */
    boolean dcgm = true;
    long nextTs;

    Play(SimulationModel model, Stack stack, String host, String modelName, double created,
        boolean kafka, long nextTs) {
      this.model = model;
      this.stack = stack;
      this.host = host;
      this.modelName = modelName;
      this.created = created;
      this.kafka = kafka;
      this.nextTs = nextTs;
    }
  }

  private final List<Play> plays = new ArrayList<>();

  /**
   * Plays a scenario and writes its scrapes ending at {@code endMs}; {@link #catchUp} continues
   * it in real time afterwards (past its duration a scenario stays in its final state).
   *
   * @param host instance host; vLLM is {@code host:8000} (job vllm), DCGM {@code host:9400}
   *     (job dcgm) with {@code Hostname=host}
   */
  synchronized void playScenario(Scenario sc, double durationS, String host, String modelName,
      long endMs, long seed) {
    Play p = newPlay(new SimulationModel(sc, durationS, seed, 2), Stack.VLLM_0_13, host,
        modelName, endMs, false);
    while (p.nextTs <= endMs) {
      scrape(p);
    }
    flush();
  }

  /**
   * Plays one stack's scenario after a lead-in of its initial (healthy) state and writes its
   * scrapes ending at {@code endMs}: the engine as job {@link Stack#job()} on {@code host:8000},
   * DCGM on {@code host:9400} (job dcgm, {@code Hostname=host}) and kafka_exporter on
   * {@code host:9308} (job kafka), so that GPU and Kafka series join the target by host.
   *
   * @param stack the engine's stack
   * @param engines engines of the model, at most {@link Stack#maxEngines()}
   * @param sc the scenario
   * @param leadInS simulated seconds of the scenario's initial state before it starts
   * @param durationS scenario length, simulated seconds
   * @param host instance host
   * @param modelName {@code model_name} label value
   * @param endMs timestamp of the last scrape, milliseconds since the epoch
   * @param seed model seed
   */
  synchronized void playStack(Stack stack, int engines, Scenario sc, double leadInS,
      double durationS, String host, String modelName, long endMs, long seed) {
    playStack(stack, null, 0, engines, sc, leadInS, durationS, host, modelName, endMs, seed);
  }

  /**
   * As {@link #playStack(Stack, int, Scenario, double, double, String, String, long, long)},
   * with the engine upgraded in place from {@code stack} to {@code upgradeTo} (same instance and
   * model) once the scenario has run {@code upgradeAtS} simulated seconds; the model goes on.
   *
   * @param upgradeTo the stack after the upgrade, or null for none; at least as many engines
   * @param upgradeAtS scenario seconds (after the lead-in) of the upgrade
   */
  synchronized void playStack(Stack stack, Stack upgradeTo, double upgradeAtS, int engines,
      Scenario sc, double leadInS, double durationS, String host, String modelName, long endMs,
      long seed) {
    Play p = newPlay(new SimulationModel(sc, durationS, leadInS, seed, engines), stack, host,
        modelName, endMs, true);
    p.upgradeTo = upgradeTo;
    p.upgradeAtS = upgradeAtS;
    while (p.nextTs <= endMs) {
      scrape(p);
    }
    flush();
  }

  /**
   * Adds a scenario ending at {@code endMs} without writing anything yet: {@link #catchUp} then
   * writes every added scenario side by side, one scrape time after the other. A receiver that
   * refuses samples much older than the newest it holds (Prometheus's head refuses those older
   * than its newest minus one hour) accepts that; {@link #playScenario} writes one scenario
   * whole before the next starts.
   *
   * @param host as for {@link #playScenario}
   */
  synchronized void addScenario(Scenario sc, double durationS, String host, String modelName,
      long endMs, long seed) {
    newPlay(new SimulationModel(sc, durationS, seed, 2), Stack.VLLM_0_13, host, modelName, endMs,
        false);
  }

  /**
   * As {@link #addScenario}, for one stack with a lead-in of its healthy state: nothing is
   * written until {@link #catchUp}, which writes every added play side by side in time order, as
   * a Prometheus replaying its WAL does.
   *
   * @param engineSilentFromMs the engine's scrapes are missing from here (ms; DCGM and Kafka go
   *     on), or {@link Long#MAX_VALUE} for none
   * @param engineSilentToMs ... up to here, ms
   */
  synchronized void addStack(Stack stack, int engines, Scenario sc, double leadInS,
      double durationS, String host, String modelName, long endMs, long seed, boolean kafka,
      long engineSilentFromMs, long engineSilentToMs) {
    Play p = newPlay(new SimulationModel(sc, durationS, leadInS, seed, engines), stack, host,
        modelName, endMs, kafka);
    p.silentFromMs = engineSilentFromMs;
    p.silentToMs = engineSilentToMs;
  }

  /**
   * A model replaced by another on the same engine host at {@code switchMs}, as a deployment
   * does: {@code modelA} plays the healthy scenario up to the switch, then {@code modelB} plays
   * {@code scB} (same stack and host, the host's DCGM scraped once), each with {@code leadInS}
   * of its healthy state before its scenario; written by {@link #catchUp}.
   */
  synchronized void addModelSwitch(Stack stack, String host, String modelA, String modelB,
      Scenario scB, long switchMs, double leadInS, double durationS, long endMs, long seed) {
    Play a = newPlay(new SimulationModel(Scenario.HEALTHY, durationS, leadInS, seed, 1), stack,
        host, modelA, endMs, false);
    a.silentFromMs = switchMs;
    a.silentToMs = Long.MAX_VALUE;
    Play b = newPlay(new SimulationModel(scB, durationS, leadInS, seed + 1, 1), stack, host,
        modelB, endMs, false);
    b.silentFromMs = Long.MIN_VALUE;
    b.silentToMs = switchMs - 1;
    b.dcgm = false;
  }

  private Play newPlay(SimulationModel model, Stack stack, String host, String modelName,
      long endMs, boolean kafka) {
    long startMs = endMs
        - Math.round((model.leadInSeconds() + model.durationSeconds()) * 1000);
    Play p = new Play(model, stack, host, modelName, startMs / 1000.0, kafka, startMs);
    plays.add(p);
    return p;
  }

  /**
   * Scrapes every played scenario up to {@code nowMs}, as a live Prometheus would: the earliest
   * due scrape first, so that the scenarios advance together.
   */
  synchronized void catchUp(long nowMs) {
    while (true) {
      Play next = null;
      for (Play p : plays) {
        if (p.nextTs <= nowMs && (next == null || p.nextTs < next.nextTs)) {
          next = p;
        }
      }
      if (next == null) {
        break;
      }
      scrape(next);
    }
    flush();
  }

  private void scrape(Play p) {
    boolean silent = p.nextTs >= p.silentFromMs && p.nextTs <= p.silentToMs;
    if (p.model.metricsAvailable() && !silent) {
      Stack now = p.upgradeTo != null && p.model.scenarioSeconds() >= p.upgradeAtS
          ? p.upgradeTo : p.stack;
      add(now.render(p.model, p.modelName, p.created), p.nextTs, now.job(), p.host + ":8000");
    }
    if (p.dcgm) {
      add(Exposition.dcgm(p.model, p.host), p.nextTs, "dcgm", p.host + ":9400");
    }
    if (p.kafka) {
      add(Exposition.kafka(p.model), p.nextTs, "kafka", p.host + ":9308");
    }
    if (pendingSamples > 150_000) {
      flush();
    }
    p.model.advance(Math.round(SCRAPE_MS / 1000.0 / SimulationModel.STEP_SECONDS));
    p.nextTs += SCRAPE_MS;
  }

  private void add(String exposition, long ts, String job, String instance) {
    for (String line : exposition.split("\n")) {
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      // name{labels} value: label values never hold a space in these expositions.
      int sp = line.lastIndexOf(' ', line.length() - 1);
      String series = line.substring(0, sp);
      String v = line.substring(sp + 1);
      double value = switch (v) {
        case "+Inf", "Inf" -> Double.POSITIVE_INFINITY;
        case "-Inf" -> Double.NEGATIVE_INFINITY;
        case "NaN" -> Double.NaN;
        default -> Double.parseDouble(v);
      };
      String key = job + '\u0000' + instance + '\u0000' + series;
      TimeSeries.Builder b = pending.get(key);
      if (b == null) {
        b = builder(parseLabels(series, job, instance));
        pending.put(key, b);
      }
      b.addSamples(Sample.newBuilder().setTimestamp(ts).setValue(value));
      pendingSamples++;
    }
  }

  /**
   * Replays one exporter scrape (a {@code fixtures/*.prom} text) every 15 s from {@code startMs}
   * to {@code endMs} as a steady engine: counter, histogram and summary series grow by their
   * scraped value every 0.1 % of a scrape ({@code value × (1 + k / 1000)} at scrape k), so rates
   * are constant and histogram quantiles are the scrape's own distribution; gauges stay as
   * scraped. Series get {@code job} and {@code instance} as a scrape would.
   */
  void replayFixture(String exposition, String job, String instance, long startMs, long endMs) {
    java.util.Set<String> cumulative = new java.util.HashSet<>();
    List<String> lines = new ArrayList<>();
    for (String line : exposition.split("\n")) {
      if (line.startsWith("# TYPE ")) {
        String[] f = line.split(" ");
        if (f.length >= 4 && (f[3].equals("counter") || f[3].equals("histogram")
            || f[3].equals("summary"))) {
          cumulative.add(f[2]);
        }
      } else if (!line.isEmpty() && !line.startsWith("#")) {
        lines.add(line);
      }
    }
    for (long ts = startMs, k = 0; ts <= endMs; ts += SCRAPE_MS, k++) {
      StringBuilder scrape = new StringBuilder();
      for (String line : lines) {
        int sp = line.lastIndexOf(' ');
        String series = line.substring(0, sp);
        int brace = series.indexOf('{');
        String name = brace < 0 ? series : series.substring(0, brace);
        String family = name.replaceAll("_(bucket|sum|count|total)$", "");
        double v = Double.parseDouble(line.substring(sp + 1).replace("Inf", "Infinity"));
        if (!name.endsWith("_created") && (cumulative.contains(name)
            || cumulative.contains(family) || cumulative.contains(family + "_total"))) {
          v *= 1 + k / 1000.0;
        }
        scrape.append(series).append(' ').append(v).append('\n');
      }
      add(scrape.toString(), ts, job, instance);
      if (pendingSamples > 150_000) {
        flush();
      }
    }
    flush();
  }

  private static TreeMap<String, String> parseLabels(String series, String job, String instance) {
    TreeMap<String, String> labels = new TreeMap<>();
    int brace = series.indexOf('{');
    if (brace >= 0) {
      int pos = brace + 1;
      while (series.charAt(pos) != '}') {
        int eq = series.indexOf('=', pos);
        String ln = series.substring(pos, eq);
        pos = eq + 2; // skip ="
        StringBuilder v = new StringBuilder();
        while (series.charAt(pos) != '"') {
          char c = series.charAt(pos++);
          if (c == '\\') {
            char n = series.charAt(pos++);
            v.append(n == 'n' ? '\n' : n);
          } else {
            v.append(c);
          }
        }
        pos++;
        labels.put(ln, v.toString());
        if (series.charAt(pos) == ',') {
          pos++;
        }
      }
    }
    labels.put("__name__", brace >= 0 ? series.substring(0, brace) : series);
    labels.put("job", job);
    labels.put("instance", instance);
    return labels;
  }

  private static TimeSeries.Builder builder(Map<String, String> labels) {
    TimeSeries.Builder b = TimeSeries.newBuilder();
    for (Map.Entry<String, String> e : new TreeMap<>(labels).entrySet()) {
      b.addLabels(Label.newBuilder().setName(e.getKey()).setValue(e.getValue()));
    }
    return b;
  }

  /** Queues one sample of the series with these labels (any order). */
  void sample(Map<String, String> labels, long ts, double value) {
    String key = new TreeMap<>(labels).toString();
    sample(key, labels, ts, value);
  }

  /** Queues one sample of the series {@code key} (a caller-chosen unique name of the labels). */
  void sample(String key, Map<String, String> labels, long ts, double value) {
    TimeSeries.Builder b = pending.get(key);
    if (b == null) {
      b = builder(labels);
      pending.put(key, b);
    }
    b.addSamples(Sample.newBuilder().setTimestamp(ts).setValue(value));
    pendingSamples++;
  }

  /** Writes what is queued as one remote-write 1.0 request; expects 204. */
  void flush() {
    if (pending.isEmpty()) {
      return;
    }
    WriteRequest.Builder req = WriteRequest.newBuilder();
    List<TimeSeries.Builder> all = new ArrayList<>(pending.values());
    for (TimeSeries.Builder b : all) {
      req.addTimeseries(b);
    }
    HttpResponse<String> r = Requests.write(base, req.build(), headers);
    assertThat(r.statusCode()).as("remote write: %s", r.body()).isEqualTo(204);
    samplesWritten += pendingSamples;
    pending.clear();
    pendingSamples = 0;
  }

  /**
   * Synthetic long history of one vLLM engine at 15 s: E2E, TTFT and ITL histograms with few
   * buckets, waiting/running gauges and the success counter — only what the trend view reads.
   * Latency follows a daily cycle and the last week is 10 % slower than the ones before;
   * {@code slow} scales every latency (a slower model version).
   */
  void syntheticHistory(String instance, String model, long startMs, long endMs, double slowdown) {
    double[][] les = {{0.5, 1, 2, 3, 4, 5, 7.5, 10}, {0.05, 0.1, 0.2, 0.3, 0.5, 1, 2},
        {0.01, 0.02, 0.03, 0.04, 0.05, 0.075, 0.1}};
    String[] names = {"vllm:e2e_request_latency_seconds", "vllm:time_to_first_token_seconds",
        "vllm:inter_token_latency_seconds"};
    double[] perReq = {1, 1, 28};
    // The series, built once: per histogram its buckets, +Inf, _count and _sum; then the gauges.
    List<Map<String, String>> series = new ArrayList<>();
    for (int h = 0; h < 3; h++) {
      for (double le : les[h]) {
        series.add(labels(instance, model, names[h] + "_bucket", "le", trim(le)));
      }
      series.add(labels(instance, model, names[h] + "_bucket", "le", "+Inf"));
      series.add(labels(instance, model, names[h] + "_count"));
      series.add(labels(instance, model, names[h] + "_sum"));
    }
    series.add(labels(instance, model, "vllm:num_requests_running"));
    series.add(labels(instance, model, "vllm:num_requests_waiting"));
    series.add(labels(instance, model, "vllm:request_success_total", "finished_reason", "stop"));
    String[] keys = series.stream().map(m -> new TreeMap<>(m).toString()).toArray(String[]::new);
    double[] v = new double[series.size()];
    double[][] cum = {new double[les[0].length], new double[les[1].length],
        new double[les[2].length]};
    double[] sums = new double[3];
    double count = 0;
    for (long ts = startMs; ts <= endMs; ts += SCRAPE_MS) {
      double day = (ts % 86_400_000L) / 86_400_000.0;
      double load = 1 + 0.5 * Math.sin(2 * Math.PI * (day - 0.3));
      double slow = slowdown * (endMs - ts < 7 * 86_400_000L ? 1.1 : 1.0) * (0.9 + 0.2 * load);
      double n = 30 * load;
      count += n;
      double[] medians = {2.5 * slow, 0.15 * slow, 0.03 * slow};
      int i = 0;
      for (int h = 0; h < 3; h++) {
        double obs = n * perReq[h];
        for (int b = 0; b < les[h].length; b++) {
          cum[h][b] += obs * logNormalCdf(les[h][b], medians[h], 0.45);
          v[i++] = cum[h][b];
        }
        sums[h] += obs * medians[h] * Math.exp(0.45 * 0.45 / 2);
        v[i++] = count * perReq[h];
        v[i++] = count * perReq[h];
        v[i++] = sums[h];
      }
      v[i++] = Math.round(20 * load);
      v[i++] = 0;
      v[i] = count;
      for (int k = 0; k < v.length; k++) {
        sample(keys[k], series.get(k), ts, v[k]);
      }
      if (pendingSamples > 200_000) {
        flush();
      }
    }
    flush();
  }

  private static Map<String, String> labels(String instance, String model, String name,
      String... extra) {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("__name__", name);
    m.put("job", "vllm");
    m.put("instance", instance);
    m.put("model_name", model);
    m.put("engine", "0");
    for (int i = 0; i < extra.length; i += 2) {
      m.put(extra[i], extra[i + 1]);
    }
    return m;
  }

  private static String trim(double d) {
    return d == Math.rint(d) ? String.valueOf((long) d) + ".0" : String.valueOf(d);
  }

  private static double logNormalCdf(double x, double median, double sigma) {
    double z = (Math.log(x) - Math.log(median)) / (sigma * Math.sqrt(2));
    return 0.5 * (1 + erf(z));
  }

  /** Abramowitz-Stegun 7.1.26, |error| &lt; 1.5e-7. */
  private static double erf(double x) {
    double t = 1 / (1 + 0.3275911 * Math.abs(x));
    double y = 1 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t
        + 0.254829592) * t * Math.exp(-x * x);
    return x >= 0 ? y : -y;
  }
}
