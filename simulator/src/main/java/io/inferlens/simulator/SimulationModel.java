package io.inferlens.simulator;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A discrete-time queueing model of an LLM serving engine (vLLM-style continuous batching with
 * data-parallel engines), plus the Kafka topic that feeds it. It is stack-neutral: the expositions
 * of {@link Stack} render its state as vLLM 0.6 / 0.10 / 0.13, SGLang or TGI; every histogram is
 * kept at the union of the bounds any of them exposes ({@link Buckets}). Deterministic for a given seed; driven only by {@link #step()}, which
 * advances the simulated clock by {@link #STEP_SECONDS} (no wall-clock time is read or slept).
 *
 * <p>Per step and engine: Kafka messages consumed become requests (Poisson arrivals at the
 * scenario's rate) and join the engine's FCFS waiting queue unless the gateway's in-flight cap is
 * reached; the scheduler admits from the head while fewer than {@link #MAX_NUM_SEQS} run and the
 * KV cache ({@link #KV_CAPACITY_TOKENS} tokens) can hold the prompt;
 * admitted requests prefill ({@link #PREFILL_TOKENS_PER_S}, prefix-cache hits skipped), which
 * stalls decoding for up to half the step (the stall is spread into every running request's
 * inter-token time, as in the TPOT 35 → 80 ms queueing case); decoding requests each produce
 * {@code decodeTime / iterationTime} tokens, where the iteration time grows with the batch size
 * and with the KV tokens read; when decode growth overflows the cache the newest running request
 * is preempted (recompute: its blocks are freed and it goes back to the head of the queue,
 * counted by {@code vllm:num_preemptions_total}).
 *
 * <p>Observations follow vllm/v1/metrics/loggers.py: TTFT = arrival → first token (queue +
 * prefill), one ITL observation per generated token after the first, per-request TPOT =
 * (e2e − TTFT) / (tokens − 1), e2e = arrival → last token, queue time = arrival → first
 * scheduled; request phases (loggers.py, V0 metrics.py): prefill = first scheduled → first token,
 * decode = first token → last token, inference = first scheduled → last token. All times are
 * seconds of simulated time. Not thread-safe: callers synchronize on the
 * model (the server and the stepping thread both do).
 */
public final class SimulationModel {

  /** Simulated seconds per {@link #step()}. */
  public static final double STEP_SECONDS = 0.1;
  /** vLLM {@code --max-num-seqs} per engine. */
  public static final int MAX_NUM_SEQS = 64;
  /** KV cache blocks per engine (as {@code num_gpu_blocks} in the fixture's cache_config_info). */
  public static final int NUM_GPU_BLOCKS = 8370;
  /** KV block size, tokens. */
  public static final int BLOCK_SIZE = 16;
  /** KV cache capacity per engine, tokens. */
  public static final long KV_CAPACITY_TOKENS = (long) NUM_GPU_BLOCKS * BLOCK_SIZE;
  /** {@code --max-model-len}, tokens. */
  public static final int MAX_MODEL_LEN = 40960;
  /** Prefill throughput of one engine, tokens per second, at slowdown 1. */
  public static final double PREFILL_TOKENS_PER_S = 60_000;
  /** Largest share of a step that prefill may take while requests are decoding. */
  static final double PREFILL_SHARE_MAX = 0.5;
  /** Decode iteration time: fixed part, seconds. */
  static final double ITER_BASE_S = 0.020;
  /** Decode iteration time: added per sequence in the batch, seconds. */
  static final double ITER_PER_SEQ_S = 0.0008;
  /** Decode iteration time: added at a full KV cache (linear in usage), seconds. */
  static final double ITER_PER_KV_S = 0.024;
  /** Number of partitions of the {@code llm-requests} topic. */
  public static final int KAFKA_PARTITIONS = 12;

  static final String[] FINISH_REASONS = {"stop", "length", "abort", "error"};
  /** Request validation (tokenisation) time, seconds (TGI's validation histogram). */
  static final double VALIDATION_S = 0.0011;
  /** Batch time / forward time: sampling and bookkeeping around the forward pass. */
  static final double BATCH_OVERHEAD = 1.12;

  /** Simulated seconds of the time constant of the throughput gauges (V0 logs every 5 s). */
  static final double THROUGHPUT_TAU_S = 5;

  private final Scenario scenario;
  private final double durationSeconds;
  private final double leadInSeconds;
  private final Random rng;
  private final List<Engine> engines = new ArrayList<>();
  private final Kafka kafka;
  private long steps;
  private double consumeBudget;

  /**
   * @param scenario the scenario to play
   * @param durationSeconds scenario length in simulated seconds (the scenario hour); after it the
   *     final phase continues
   * @param seed random seed; the same seed gives the same run
   * @param engineCount number of data-parallel engines (labels {@code "0"}, {@code "1"}, ...)
   */
  public SimulationModel(Scenario scenario, double durationSeconds, long seed, int engineCount) {
    this(scenario, durationSeconds, 0, seed, engineCount);
  }

  /**
   * A model that first runs {@code leadInSeconds} in the scenario's initial state (its parameters
   * at fraction 0) and only then starts the scenario's clock: hours of healthy history before a
   * fault, for baselines, without stretching the fault itself.
   *
   * @param scenario the scenario to play
   * @param durationSeconds scenario length in simulated seconds, after the lead-in
   * @param leadInSeconds simulated seconds before the scenario starts, &ge; 0
   * @param seed random seed; the same seed gives the same run
   * @param engineCount number of data-parallel engines (labels {@code "0"}, {@code "1"}, ...)
   * @throws IllegalArgumentException if the duration is not positive, the lead-in negative or
   *     there is no engine
   */
  public SimulationModel(Scenario scenario, double durationSeconds, double leadInSeconds,
      long seed, int engineCount) {
    if (!(durationSeconds > 0) || engineCount < 1 || !(leadInSeconds >= 0)) {
      throw new IllegalArgumentException("duration must be > 0, lead-in >= 0 and engines >= 1");
    }
    this.scenario = scenario;
    this.durationSeconds = durationSeconds;
    this.leadInSeconds = leadInSeconds;
    this.rng = new Random(seed);
    for (int i = 0; i < engineCount; i++) {
      engines.add(new Engine(Integer.toString(i)));
    }
    this.kafka = new Kafka(rng);
  }

  /** @return the scenario being played */
  public Scenario scenario() {
    return scenario;
  }

  /** @return the scenario duration, simulated seconds */
  public double durationSeconds() {
    return durationSeconds;
  }

  /** @return simulated seconds since the start, lead-in included */
  public double nowSeconds() {
    return steps * STEP_SECONDS;
  }

  /** @return the lead-in before the scenario's clock starts, simulated seconds */
  public double leadInSeconds() {
    return leadInSeconds;
  }

  /** @return simulated seconds since the scenario's start (0 during the lead-in) */
  public double scenarioSeconds() {
    return Math.max(0, nowSeconds() - leadInSeconds);
  }

  /** @return scenario fraction in [0, 1] */
  public double fraction() {
    return Math.min(1, scenarioSeconds() / durationSeconds);
  }

  /** @return whether the engine's /metrics answers now (see {@link Scenario#metricsAvailable}) */
  public boolean metricsAvailable() {
    return scenario.metricsAvailable(scenarioSeconds(), durationSeconds);
  }

  /** @return the engines, in label order */
  public List<Engine> engines() {
    return engines;
  }

  /** @return the Kafka topic and consumer group state */
  public Kafka kafka() {
    return kafka;
  }

  /**
   * Advances the simulated clock by {@code n} steps.
   *
   * @param n number of steps of {@link #STEP_SECONDS}
   */
  public void advance(long n) {
    for (long i = 0; i < n; i++) {
      step();
    }
  }

  /** Advances the simulated clock by one step of {@link #STEP_SECONDS}. */
  public void step() {
    double t = nowSeconds();
    Scenario.Params p = scenario.params(scenarioSeconds() / durationSeconds, engines.size());
    double dt = STEP_SECONDS;

    // Kafka: consume what the group can (before this step's production: it stays as lag until
    // the next poll), then produce.
    long consumed;
    if (Double.isInfinite(p.kafkaConsumeCapacity())) {
      consumed = kafka.lagSum();
    } else {
      consumeBudget += p.kafkaConsumeCapacity() * dt;
      long can = (long) consumeBudget;
      consumed = Math.min(can, kafka.lagSum());
      consumeBudget -= consumed;
      if (consumed < can) {
        consumeBudget = Math.min(consumeBudget, 1); // idle consumers do not bank capacity
      }
    }
    kafka.consume(consumed);
    kafka.produce(poisson(p.kafkaProduceRate() * dt));

    // Each consumed message is one request, routed to a uniformly chosen engine.
    for (long i = 0; i < consumed; i++) {
      Engine e = engines.get(rng.nextInt(engines.size()));
      e.arrive(newRequest(t - rng.nextDouble() * dt, p), p.maxInFlight());
    }
    for (Engine e : engines) {
      e.step(t, dt, p.slowdown());
    }
    steps++;
  }

  private Request newRequest(double arrival, Scenario.Params p) {
    double sigma = 0.5;
    double median = p.promptMean() * Math.exp(-sigma * sigma / 2);
    int maxTokens = (int) Math.round(p.outputMedian() * 2.5);
    int prompt = (int) Math.round(median * Math.exp(sigma * rng.nextGaussian()));
    prompt = Math.max(16, Math.min(MAX_MODEL_LEN - maxTokens, prompt));
    int out = (int) Math.round(p.outputMedian() * Math.exp(0.45 * rng.nextGaussian()));
    boolean length = out >= maxTokens;
    out = Math.max(1, Math.min(maxTokens, out));
    double hitRatio = 0.3 + 0.4 * rng.nextDouble();
    int cached = (int) (prompt * hitRatio) / BLOCK_SIZE * BLOCK_SIZE;
    return new Request(arrival, prompt, cached, out, length, maxTokens);
  }

  private long poisson(double mean) {
    if (mean <= 0) {
      return 0;
    }
    if (mean > 30) {
      return Math.max(0, Math.round(mean + Math.sqrt(mean) * rng.nextGaussian()));
    }
    double l = Math.exp(-mean);
    long k = 0;
    double prod = rng.nextDouble();
    while (prod > l) {
      k++;
      prod *= rng.nextDouble();
    }
    return k;
  }

  /** One request inside an engine. Times in simulated seconds. */
  static final class Request {
    final double arrival;
    final int prompt;
    final int cached;
    final int target;
    final boolean length;
    final int maxTokens;
    int generated;
    long kv;
    long prefillRemaining;
    double firstScheduled = -1;
    double firstToken = -1;
    double tokenAcc;
    boolean promptCounted;

    Request(double arrival, int prompt, int cached, int target, boolean length, int maxTokens) {
      this.arrival = arrival;
      this.prompt = prompt;
      this.cached = cached;
      this.target = target;
      this.length = length;
      this.maxTokens = maxTokens;
    }
  }

  /**
   * One engine core (vLLM's {@code engine} label; the single scheduler of SGLang and TGI): its
   * queues, KV cache and the counters and histograms the stacks' series expose. Histograms hold
   * the union bounds of {@link Buckets}. Read its state only while holding the model's lock.
   */
  public final class Engine {
    final String label;
    final ArrayDeque<Request> waiting = new ArrayDeque<>();
    final List<Request> running = new ArrayList<>();
    long kvUsed;
    long preemptions;
    long promptTokens;
    long generationTokens;
    long prefixQueries;
    long prefixHits;
    long refusedByGateway;
    /** Requests that reached the engine's front door, refused ones included. */
    long arrivals;
    final long[] finished = new long[FINISH_REASONS.length];
    final Histogram ttft = new Histogram(Buckets.TTFT);
    final Histogram itl = new Histogram(Buckets.ITL);
    final Histogram requestTpot = new Histogram(Buckets.REQUEST_TPOT);
    final Histogram e2e = new Histogram(Buckets.E2E);
    final Histogram queueTime = new Histogram(Buckets.QUEUE);
    /** Queue time observed when a request is first scheduled (V0 time_in_queue, SGLang). */
    final Histogram scheduledQueueTime = new Histogram(Buckets.QUEUE);
    final Histogram inferencePhase = new Histogram(Buckets.PHASE);
    final Histogram prefillPhase = new Histogram(Buckets.PHASE);
    final Histogram decodePhase = new Histogram(Buckets.PHASE);
    final Histogram promptLength = new Histogram(Buckets.PROMPT);
    final Histogram generationLength = new Histogram(Buckets.GENERATED);
    final Histogram maxTokensRequested = new Histogram(Buckets.VLLM_TOKENS);
    final Histogram paramsN = new Histogram(Buckets.VLLM_PARAMS_N);
    final Histogram iterationTokens = new Histogram(Buckets.ITERATION);
    /** Per prefill batch and per decode iteration: forward time and forward + overhead. */
    final Histogram prefillForward = new Histogram(Buckets.TGI_DURATION);
    final Histogram decodeForward = new Histogram(Buckets.TGI_DURATION);
    final Histogram prefillBatchTime = new Histogram(Buckets.TGI_DURATION);
    final Histogram decodeBatchTime = new Histogram(Buckets.TGI_DURATION);
    final Histogram validationTime = new Histogram(Buckets.TGI_DURATION);
    long admittedRequests;
    long prefillBatches;
    long decodeIterations;
    /** Prefill batches that joined a batch already decoding (TGI batch_concat wait_exceeded). */
    long batchConcats;
    /** Requests preempted in the last step (SGLang's num_retracted_reqs gauge). */
    int lastPreempted;
    /** Prefix-cache hit ratio of the requests admitted in the last step that admitted any. */
    double lastHitRate;
    /** EMAs of prompt and generation tokens per second ({@link #THROUGHPUT_TAU_S}). */
    double promptThroughput;
    double generationThroughput;
    double gpuUtil = 0.05;
    double lastItl;
    double energyMillijoules;

    Engine(String label) {
      this.label = label;
    }

    /** @return the {@code engine} label value */
    public String label() {
      return label;
    }

    /** @return {@code vllm:num_requests_running} */
    public int running() {
      return running.size();
    }

    /** @return {@code vllm:num_requests_waiting} (includes preempted requests) */
    public int waiting() {
      return waiting.size();
    }

    /** @return {@code vllm:kv_cache_usage_perc}, a ratio in [0, 1] */
    public double kvUsage() {
      return Math.min(1.0, (double) kvUsed / KV_CAPACITY_TOKENS);
    }

    /** @return {@code vllm:num_preemptions_total} */
    public long preemptions() {
      return preemptions;
    }

    /** @return {@code vllm:prompt_tokens_total} */
    public long promptTokens() {
      return promptTokens;
    }

    /** @return {@code vllm:generation_tokens_total} */
    public long generationTokens() {
      return generationTokens;
    }

    /** @return requests the gateway refused because the in-flight cap was reached (not exported) */
    public long refusedByGateway() {
      return refusedByGateway;
    }

    /**
     * @param reason one of {@code stop}, {@code length}, {@code abort}, {@code error}
     * @return {@code vllm:request_success_total} for that reason
     */
    public long finished(String reason) {
      for (int i = 0; i < FINISH_REASONS.length; i++) {
        if (FINISH_REASONS[i].equals(reason)) {
          return finished[i];
        }
      }
      throw new IllegalArgumentException(reason);
    }

    /** @return {@code DCGM_FI_DEV_GPU_UTIL} of this engine's GPU, percent 0-100 */
    public int gpuUtilPercent() {
      return (int) Math.round(Math.max(0, Math.min(100, gpuUtil * 100)));
    }

    /** @return the mean inter-token latency of the last step with decoding, seconds */
    public double lastItlSeconds() {
      return lastItl;
    }

    /** @return TTFT histogram (seconds) */
    public Histogram ttft() {
      return ttft;
    }

    /** @return inter-token latency histogram (seconds) */
    public Histogram itl() {
      return itl;
    }

    /** @return per-request time-per-output-token histogram (seconds) */
    public Histogram requestTpot() {
      return requestTpot;
    }

    /** @return end-to-end latency histogram (seconds) */
    public Histogram e2e() {
      return e2e;
    }

    /** @return queue-time histogram (seconds) */
    public Histogram queueTime() {
      return queueTime;
    }

    /**
     * @return tokens the running batch may come to hold: prompt plus {@code max_tokens} per
     *     running request, at most the KV capacity (TGI's {@code tgi_batch_current_max_tokens})
     */
    public long reservedTokens() {
      long s = 0;
      for (Request r : running) {
        s += r.prompt + r.maxTokens;
      }
      return Math.min(s, KV_CAPACITY_TOKENS);
    }

    void arrive(Request r, int maxInFlight) {
      arrivals++;
      if (waiting.size() + running.size() >= maxInFlight) {
        refusedByGateway++;
        return;
      }
      waiting.addLast(r);
    }

    void step(double t, double dt, double slowdown) {
      long promptBefore = promptTokens;
      long generationBefore = generationTokens;
      long admittedPrompt = 0;
      long admittedCached = 0;
      // 1. admission, FCFS with head-of-line blocking on KV space
      long limit = KV_CAPACITY_TOKENS; // V1 allocates prompt blocks while any are free
      while (running.size() < MAX_NUM_SEQS && !waiting.isEmpty()) {
        Request r = waiting.peekFirst();
        long need = (long) r.prompt + r.generated;
        if (kvUsed + need > limit) {
          break;
        }
        waiting.pollFirst();
        running.add(r);
        kvUsed += need;
        r.kv = need;
        r.prefillRemaining = Math.max(1, need - r.cached);
        if (r.firstScheduled < 0) {
          r.firstScheduled = t;
          prefixQueries += r.prompt;
          prefixHits += r.cached;
          admittedPrompt += r.prompt;
          admittedCached += r.cached;
          admittedRequests++;
          scheduledQueueTime.observe(t - r.arrival, 1);
        }
      }
      if (admittedPrompt > 0) {
        lastHitRate = (double) admittedCached / admittedPrompt;
      }

      // 2. prefill, FCFS, stalls decode for up to PREFILL_SHARE_MAX of the step
      int decoders = 0;
      long pending = 0;
      for (Request r : running) {
        if (r.prefillRemaining > 0) {
          pending += r.prefillRemaining;
        } else {
          decoders++;
        }
      }
      double prefillRate = PREFILL_TOKENS_PER_S / slowdown;
      double prefillTime = Math.min(pending / prefillRate,
          decoders > 0 ? dt * PREFILL_SHARE_MAX : dt);
      double budget = prefillTime * prefillRate;
      double used = 0;
      List<Request> done = new ArrayList<>();
      for (Request r : running) {
        if (r.prefillRemaining <= 0 || budget <= 0) {
          continue;
        }
        double take = Math.min(r.prefillRemaining, budget);
        budget -= take;
        used += take;
        r.prefillRemaining -= (long) Math.ceil(take);
        if (r.prefillRemaining <= 0) {
          r.prefillRemaining = 0;
          if (!r.promptCounted) {
            r.promptCounted = true;
            promptTokens += r.prompt;
          }
          if (r.firstToken < 0) {
            double tc = t + used / prefillRate;
            r.firstToken = tc;
            ttft.observe(tc - r.arrival, 1);
            r.generated = 1;
            r.kv++;
            kvUsed++;
            generationTokens++;
            if (r.generated >= r.target) {
              done.add(r);
            }
          }
          r.tokenAcc = 0;
        }
      }

      // 3. decode: the requests that were decoding at the start of the step
      double decodeTime = dt - prefillTime;
      double iter = slowdown * (ITER_BASE_S + ITER_PER_SEQ_S * decoders
          + ITER_PER_KV_S * kvUsage());
      double perReq = decodeTime / iter;
      double itlValue = iter * dt / decodeTime * Math.exp(0.08 * rng.nextGaussian());
      if (decoders > 0) {
        lastItl = itlValue;
      }
      for (Request r : running) {
        if (r.prefillRemaining > 0 || r.firstToken < 0 || done.contains(r)
            || r.firstToken >= t) {
          continue;
        }
        r.tokenAcc += perReq;
        int k = (int) r.tokenAcc;
        r.tokenAcc -= k;
        k = Math.min(k, r.target - r.generated);
        if (k <= 0) {
          continue;
        }
        r.generated += k;
        r.kv += k;
        kvUsed += k;
        generationTokens += k;
        itl.observe(itlValue, k);
        if (r.generated >= r.target) {
          done.add(r);
        }
      }
      double end = t + dt;
      for (Request r : done) {
        running.remove(r);
        kvUsed -= r.kv;
        double e2eS = end - r.arrival;
        e2e.observe(e2eS, 1);
        queueTime.observe(r.firstScheduled - r.arrival, 1);
        requestTpot.observe(r.generated > 1 ? (end - r.firstToken) / (r.generated - 1) : 0, 1);
        inferencePhase.observe(end - r.firstScheduled, 1);
        prefillPhase.observe(r.firstToken - r.firstScheduled, 1);
        decodePhase.observe(end - r.firstToken, 1);
        promptLength.observe(r.prompt, 1);
        generationLength.observe(r.generated, 1);
        maxTokensRequested.observe(r.maxTokens, 1);
        paramsN.observe(1, 1);
        validationTime.observe(VALIDATION_S, 1);
        finished[r.length ? 1 : 0]++;
      }

      // Per-iteration records: one prefill batch when prefill ran, decode iterations as many as
      // fit in the decode share; tokens per iteration so that their sum is the step's tokens.
      long iterations = decoders > 0 ? Math.max(1, Math.round(decodeTime / iter)) : 0;
      if (prefillTime > 0) {
        prefillBatches++;
        prefillForward.observe(prefillTime, 1);
        prefillBatchTime.observe(prefillTime * BATCH_OVERHEAD, 1);
        if (decoders > 0) {
          batchConcats++;
        }
      }
      if (iterations > 0) {
        decodeIterations += iterations;
        decodeForward.observe(iter, iterations);
        decodeBatchTime.observe(iter * BATCH_OVERHEAD, iterations);
      }
      long stepTokens = promptTokens - promptBefore + generationTokens - generationBefore;
      long records = iterations + (prefillTime > 0 ? 1 : 0);
      if (stepTokens > 0 && records > 0) {
        iterationTokens.observe((double) stepTokens / records, records);
      }
      double a = Math.min(1, dt / THROUGHPUT_TAU_S);
      promptThroughput += ((promptTokens - promptBefore) / dt - promptThroughput) * a;
      generationThroughput += ((generationTokens - generationBefore) / dt - generationThroughput)
          * a;

      // 4. preemption (recompute) of the newest running requests while the cache overflows
      lastPreempted = 0;
      while (kvUsed > KV_CAPACITY_TOKENS && running.size() > 1) {
        Request victim = running.remove(running.size() - 1);
        kvUsed -= victim.kv;
        victim.kv = 0;
        victim.prefillRemaining = 0;
        victim.tokenAcc = 0;
        waiting.addFirst(victim);
        preemptions++;
        lastPreempted++;
      }

      // 5. GPU utilisation: prefill share busy, decode share busy by batch occupancy; EMA ~2 s
      double occupancy = 1 - Math.exp(-decoders / 5.0);
      double busy = (prefillTime + (decoders > 0 ? decodeTime * occupancy : 0)) / dt;
      gpuUtil += (busy - gpuUtil) * Math.min(1, dt / 2.0);
      energyMillijoules += Exposition.powerWatts(this) * dt * 1000;
    }
  }

  /**
   * The {@code llm-requests} topic ({@value #KAFKA_PARTITIONS} partitions) and its consumer group
   * {@code inference-dispatcher}, as kafka_exporter reports them: end offsets, committed offsets,
   * lag = end − committed per partition.
   */
  public static final class Kafka {
    final long[] endOffsets = new long[KAFKA_PARTITIONS];
    final long[] committed = new long[KAFKA_PARTITIONS];
    final long[] oldest = new long[KAFKA_PARTITIONS];
    private final Random rng;
    private int nextPartition;

    Kafka(Random rng) {
      this.rng = rng;
      for (int i = 0; i < KAFKA_PARTITIONS; i++) {
        endOffsets[i] = 1_800_000 + rng.nextInt(200_000);
        committed[i] = endOffsets[i];
        oldest[i] = endOffsets[i] - 1_500_000;
      }
    }

    void produce(long n) {
      for (long i = 0; i < n; i++) {
        endOffsets[rng.nextInt(KAFKA_PARTITIONS)]++;
      }
    }

    void consume(long n) {
      long left = n;
      int guard = 0;
      while (left > 0 && guard < KAFKA_PARTITIONS) {
        int p = nextPartition;
        nextPartition = (nextPartition + 1) % KAFKA_PARTITIONS;
        if (committed[p] < endOffsets[p]) {
          committed[p]++;
          left--;
          guard = 0;
        } else {
          guard++;
        }
      }
    }

    /** @return {@code kafka_consumergroup_lag_sum} for the group and topic, messages */
    public long lagSum() {
      long s = 0;
      for (int i = 0; i < KAFKA_PARTITIONS; i++) {
        s += endOffsets[i] - committed[i];
      }
      return s;
    }

    /**
     * @param partition 0-based partition
     * @return {@code kafka_consumergroup_lag} of that partition, messages
     */
    public long lag(int partition) {
      return endOffsets[partition] - committed[partition];
    }
  }
}
