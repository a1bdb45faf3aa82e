package io.inferlens.simulator;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * Renders a {@link SimulationModel} as the Hugging Face TGI 3.x router serves {@code /metrics},
 * in the exact shape of {@code fixtures/tgi.prom}: the families of
 * huggingface/text-generation-inference router/src/server.rs as metrics-exporter-prometheus
 * renders them (metrics-rs recorder.rs): counters, then gauges, then histograms and the summary;
 * a blank line after every family; {@code # HELP} only for described metrics; counters without
 * {@code _total} written as integers; gauges, sums and bounds in Rust's {@code f64} display
 * ({@link PromFormat#rustFloat}); {@code le}/{@code quantile} after the other labels; no model
 * label and no TTFT. {@code tgi_request_failure{err="overloaded"}} counts the requests refused at
 * the queue cap; {@code tgi_batch_current_max_tokens} is the token budget the running batch
 * reserves (prompt + {@code max_new_tokens} per request) out of
 * {@code tgi_batch_max_total_tokens}, the KV-cache capacity. Callers hold the model's lock.
 */
final class TgiExposition {

  private static final double[] SKIPPED_QUANTILES = {0, 0.5, 0.9, 0.95, 0.99, 0.999, 1};

  /** The {@code le="…"} texts of each bound list (the lists are constants). */
  private static final Map<double[], String[]> LE =
      Collections.synchronizedMap(new IdentityHashMap<>());

  private final StringBuilder sb = new StringBuilder(48 * 1024);

  private TgiExposition() {}

  /** See {@link Stack#render}; the model has one engine, the model name is not exposed. */
  static String render(SimulationModel m, String modelName, double created) {
    SimulationModel.Engine e = m.engines().get(0);
    TgiExposition t = new TgiExposition();
    long success = 0;
    for (long f : e.finished) {
      success += f;
    }
    t.counter("tgi_request_count", "Total number of requests", new String[] {""},
        e.arrivals);
    t.counter("tgi_request_success", "Number of successful requests", new String[] {""},
        success);
    t.counter("tgi_request_failure", null, new String[] {"err=\"overloaded\"",
        "err=\"validation\"", "err=\"dropped\""}, e.refusedByGateway, 0, 0);
    t.counter("tgi_batch_inference_count", "Inference calls per method (prefill or decode)",
        new String[] {"method=\"prefill\"", "method=\"decode\""}, e.prefillBatches,
        e.decodeIterations);
    t.counter("tgi_batch_inference_success",
        "Number of successful inference calls per method (prefill or decode)",
        new String[] {"method=\"prefill\"", "method=\"decode\""}, e.prefillBatches,
        e.decodeIterations);
    t.counter("tgi_batch_concat", null, new String[] {"reason=\"backpressure\"",
        "reason=\"wait_exceeded\""}, 0, e.batchConcats);
    t.gauge("tgi_queue_size", "Current queue size", e.waiting());
    t.gauge("tgi_batch_current_size", "Current batch size", e.running());
    t.gauge("tgi_batch_current_max_tokens", "Maximum tokens for the current batch",
        e.reservedTokens());
    t.gauge("tgi_batch_max_total_tokens", null, SimulationModel.KV_CAPACITY_TOKENS);
    t.histogram("tgi_request_duration", "Request duration", Buckets.TGI_DURATION,
        new String[] {""}, e.e2e);
    t.histogram("tgi_request_validation_duration", "Request validation duration",
        Buckets.TGI_DURATION, new String[] {""}, e.validationTime);
    t.histogram("tgi_request_queue_duration", "Request queue duration", Buckets.TGI_DURATION,
        new String[] {""}, e.queueTime);
    t.histogram("tgi_request_inference_duration", "Request inference duration",
        Buckets.TGI_DURATION, new String[] {""}, e.inferencePhase);
    t.histogram("tgi_request_mean_time_per_token_duration", "Mean time per token per request",
        Buckets.TGI_DURATION, new String[] {""}, e.requestTpot);
    t.histogram("tgi_request_input_length", "Input token length per request", Buckets.TGI_INPUT,
        new String[] {""}, e.promptLength);
    t.histogram("tgi_request_generated_tokens", "Generated tokens per request",
        Buckets.TGI_GENERATED, new String[] {""}, e.generationLength);
    t.histogram("tgi_batch_forward_duration",
        "Batch forward duration per method (prefill or decode)", Buckets.TGI_DURATION,
        new String[] {"method=\"prefill\"", "method=\"decode\""}, e.prefillForward,
        e.decodeForward);
    t.histogram("tgi_batch_inference_duration", "Batch inference duration", Buckets.TGI_DURATION,
        new String[] {"method=\"prefill\"", "method=\"decode\""}, e.prefillBatchTime,
        e.decodeBatchTime);
    // No speculation: every quantile and the sum are 0; one observation per generated token.
    t.head("tgi_request_skipped_tokens", "Speculated tokens per request", "summary");
    for (double q : SKIPPED_QUANTILES) {
      t.sb.append("tgi_request_skipped_tokens{quantile=\"").append(PromFormat.rustFloat(q))
          .append("\"} 0\n");
    }
    t.sb.append("tgi_request_skipped_tokens_sum 0\n");
    t.sb.append("tgi_request_skipped_tokens_count ").append(e.generationTokens).append("\n\n");
    return t.sb.toString();
  }

  private void head(String name, String help, String type) {
    if (help != null) {
      sb.append("# HELP ").append(name).append(' ').append(help).append('\n');
    }
    sb.append("# TYPE ").append(name).append(' ').append(type).append('\n');
  }

  /** {@code {labels}} or nothing; {@code extra} (e.g. {@code le="1"}) goes last. */
  private void labels(String labels, String extra) {
    if (labels.isEmpty() && extra == null) {
      return;
    }
    sb.append('{').append(labels);
    if (extra != null) {
      sb.append(labels.isEmpty() ? "" : ",").append(extra);
    }
    sb.append('}');
  }

  private void counter(String name, String help, String[] rows, long... values) {
    head(name, help, "counter");
    for (int i = 0; i < rows.length; i++) {
      sb.append(name);
      labels(rows[i], null);
      sb.append(' ').append(values[i]).append('\n');
    }
    sb.append('\n');
  }

  private void gauge(String name, String help, double value) {
    head(name, help, "gauge");
    sb.append(name).append(' ').append(PromFormat.rustFloat(value)).append("\n\n");
  }

  private void histogram(String name, String help, double[] bounds, String[] rows,
      Histogram... hs) {
    head(name, help, "histogram");
    String[] les = LE.computeIfAbsent(bounds, b -> {
      String[] out = new String[b.length + 1];
      for (int k = 0; k < b.length; k++) {
        out[k] = "le=\"" + PromFormat.rustFloat(b[k]) + "\"";
      }
      out[b.length] = "le=\"+Inf\"";
      return out;
    });
    for (int i = 0; i < rows.length; i++) {
      long[] cum = hs[i].cumulativeAt(bounds);
      for (int k = 0; k <= bounds.length; k++) {
        sb.append(name).append("_bucket");
        labels(rows[i], les[k]);
        sb.append(' ').append(cum[k]).append('\n');
      }
      sb.append(name).append("_sum");
      labels(rows[i], null);
      sb.append(' ').append(PromFormat.rustFloat(hs[i].sum())).append('\n');
      sb.append(name).append("_count");
      labels(rows[i], null);
      sb.append(' ').append(hs[i].count()).append('\n');
    }
    sb.append('\n');
  }
}
