package io.inferlens.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.inferlens.api.sim.Exposition;
import io.inferlens.api.sim.Scenario;
import io.inferlens.api.sim.SimulationModel;
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
 * remote-writes what a 15 s scrape of {@code /metrics} (vLLM) and {@code /dcgm/metrics} would
 * have returned, with timestamps ending at a given wall-clock time; or writes synthetic
 * histograms for long ranges. Hours of data take seconds.
 */
final class SimulatedWrites {

  static final long SCRAPE_MS = 15_000;

  /** Samples collected per series (label set in Prometheus's sorted order). */
  private final Map<String, TimeSeries.Builder> pending = new LinkedHashMap<>();
  private int pendingSamples;
  private final URI base;
  long samplesWritten;

  SimulatedWrites(URI base) {
    this.base = base;
  }

  /** A scenario being played: its model and the timestamp of its next scrape. */
  private static final class Play {
    final SimulationModel model;
    final String host;
    final String modelName;
    final double created;
    long nextTs;

    Play(SimulationModel model, String host, String modelName, double created, long nextTs) {
      this.model = model;
      this.host = host;
      this.modelName = modelName;
      this.created = created;
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
    long startMs = endMs - Math.round(durationS * 1000);
    Play p = new Play(new SimulationModel(sc, durationS, seed, 2), host, modelName,
        startMs / 1000.0, startMs);
    plays.add(p);
    while (p.nextTs <= endMs) {
      scrape(p);
    }
    flush();
  }

  /** Scrapes every played scenario up to {@code nowMs}, as a live Prometheus would. */
  synchronized void catchUp(long nowMs) {
    for (Play p : plays) {
      while (p.nextTs <= nowMs) {
        scrape(p);
      }
    }
    flush();
  }

  private void scrape(Play p) {
    if (p.model.metricsAvailable()) {
      add(Exposition.vllm(p.model, p.modelName, p.created), p.nextTs, "vllm", p.host + ":8000");
    }
    add(Exposition.dcgm(p.model, p.host), p.nextTs, "dcgm", p.host + ":9400");
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
      TreeMap<String, String> labels = new TreeMap<>();
      int brace = line.indexOf('{');
      int space;
      String name;
      if (brace >= 0) {
        name = line.substring(0, brace);
        int pos = brace + 1;
        while (line.charAt(pos) != '}') {
          int eq = line.indexOf('=', pos);
          String ln = line.substring(pos, eq);
          pos = eq + 2; // skip ="
          StringBuilder v = new StringBuilder();
          while (line.charAt(pos) != '"') {
            char c = line.charAt(pos++);
            if (c == '\\') {
              char n = line.charAt(pos++);
              v.append(n == 'n' ? '\n' : n);
            } else {
              v.append(c);
            }
          }
          pos++;
          labels.put(ln, v.toString());
          if (line.charAt(pos) == ',') {
            pos++;
          }
        }
        space = pos + 1;
      } else {
        space = line.indexOf(' ');
        name = line.substring(0, space);
        space++;
      }
      String[] rest = line.substring(space).strip().split("\\s+");
      double value = switch (rest[0]) {
        case "+Inf", "Inf" -> Double.POSITIVE_INFINITY;
        case "-Inf" -> Double.NEGATIVE_INFINITY;
        case "NaN" -> Double.NaN;
        default -> Double.parseDouble(rest[0]);
      };
      labels.put("__name__", name);
      labels.put("job", job);
      labels.put("instance", instance);
      sample(labels, ts, value);
    }
  }

  /** Queues one sample of the series with these labels (any order). */
  void sample(Map<String, String> labels, long ts, double value) {
    TreeMap<String, String> sorted = new TreeMap<>(labels);
    String key = sorted.toString();
    TimeSeries.Builder b = pending.get(key);
    if (b == null) {
      b = TimeSeries.newBuilder();
      for (Map.Entry<String, String> e : sorted.entrySet()) {
        b.addLabels(Label.newBuilder().setName(e.getKey()).setValue(e.getValue()));
      }
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
    HttpResponse<String> r = Requests.write(base, req.build());
    assertThat(r.statusCode()).as("remote write: %s", r.body()).isEqualTo(204);
    samplesWritten += pendingSamples;
    pending.clear();
    pendingSamples = 0;
  }

  /**
   * Synthetic long history of one vLLM engine at 15 s: E2E, TTFT and ITL histograms with few
   * buckets, waiting/running gauges and the success counter — only what the trend view reads.
   * Latency follows a daily cycle; the model {@code modelB} replaces {@code modelA} at
   * {@code switchMs} and is 20 % slower; the last week is also 10 % slower than the one before.
   */
  void syntheticHistory(String instance, String modelA, String modelB, long startMs, long endMs,
      long switchMs) {
    double[] e2eLe = {0.5, 1, 2, 3, 4, 5, 7.5, 10};
    double[] ttftLe = {0.05, 0.1, 0.2, 0.3, 0.5, 1, 2};
    double[] itlLe = {0.01, 0.02, 0.03, 0.04, 0.05, 0.075, 0.1};
    double[][] cum = new double[3][];
    double[] sums = new double[3];
    double count = 0;
    String model = null;
    for (long ts = startMs; ts <= endMs; ts += SCRAPE_MS) {
      String now = ts < switchMs ? modelA : modelB;
      if (!now.equals(model)) { // a new engine process: counters start over
        model = now;
        cum = new double[][] {new double[e2eLe.length], new double[ttftLe.length],
            new double[itlLe.length]};
        sums = new double[3];
        count = 0;
      }
      double day = (ts % 86_400_000L) / 86_400_000.0;
      double load = 1 + 0.5 * Math.sin(2 * Math.PI * (day - 0.3));
      double slow = (ts < switchMs ? 1.0 : 1.2) * (endMs - ts < 7 * 86_400_000L ? 1.1 : 1.0)
          * (0.9 + 0.2 * load);
      double n = 30 * load;
      count += n;
      double[] medians = {2.5 * slow, 0.15 * slow, 0.03 * slow};
      double[][] les = {e2eLe, ttftLe, itlLe};
      String[] names = {"vllm:e2e_request_latency_seconds", "vllm:time_to_first_token_seconds",
          "vllm:inter_token_latency_seconds"};
      double[] perReq = {1, 1, 28};
      Map<String, String> base = new LinkedHashMap<>();
      base.put("job", "vllm");
      base.put("instance", instance);
      base.put("model_name", model);
      base.put("engine", "0");
      for (int h = 0; h < 3; h++) {
        double obs = n * perReq[h];
        for (int b = 0; b < les[h].length; b++) {
          cum[h][b] += obs * logNormalCdf(les[h][b], medians[h], 0.45);
          Map<String, String> l = new LinkedHashMap<>(base);
          l.put("__name__", names[h] + "_bucket");
          l.put("le", trim(les[h][b]));
          sample(l, ts, cum[h][b]);
        }
        sums[h] += obs * medians[h] * Math.exp(0.45 * 0.45 / 2);
        Map<String, String> l = new LinkedHashMap<>(base);
        l.put("__name__", names[h] + "_bucket");
        l.put("le", "+Inf");
        sample(l, ts, count * perReq[h]);
        l.put("__name__", names[h] + "_count");
        l.remove("le");
        sample(l, ts, count * perReq[h]);
        l.put("__name__", names[h] + "_sum");
        sample(l, ts, sums[h]);
      }
      Map<String, String> l = new LinkedHashMap<>(base);
      l.put("__name__", "vllm:num_requests_running");
      sample(l, ts, Math.round(20 * load));
      l.put("__name__", "vllm:num_requests_waiting");
      sample(l, ts, 0);
      l.put("__name__", "vllm:request_success_total");
      l.put("finished_reason", "stop");
      sample(l, ts, count);
      if (pendingSamples > 200_000) {
        flush();
      }
    }
    flush();
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
