package io.inferlens.simulator;

import java.util.Locale;

/**
 * The simulator's scenarios. Each maps the scenario fraction {@code f} (simulated time divided by
 * the scenario duration, clamped to [0, 1]) to the load and engine parameters of that moment
 * ({@link Params}). Every degrading scenario keeps the first {@link #HEALTHY_PHASE} of its duration
 * healthy so that a baseline exists before the change.
 *
 * <p>Rates are per engine (the simulated server runs two data-parallel engines, {@code engine="0"}
 * and {@code "1"}, like the vLLM 0.13 fixture); token lengths are tokens; times are seconds.
 */
public enum Scenario {

  /** Low load: waiting 0, KV cache about 20%, GPU about 50%. */
  HEALTHY("healthy", "steady low load: waiting 0, KV ~20%, GPU ~50%, ITL ~36 ms, E2E P95 ~3 s"),
  /** Arrivals ramp beyond capacity: the queue fills to the gateway's in-flight cap. */
  PEAK_SATURATION("peak-saturation",
      "arrivals ramp past capacity after 20%: waiting ~25, GPU ~96%, KV ~93%, ITL 36->85 ms, "
          + "E2E P95 ~3->11 s"),
  /** Long generations fill the KV cache; decode growth preempts the newest requests. */
  KV_PRESSURE("kv-pressure",
      "generations grow to ~1200 tokens after 20%: KV >= 90%, rising preemptions, ITL up, "
          + "modest queue"),
  /** Same load, but compute per token is 1.6x slower (e.g. a bad kernel) after 30%; observed ITL
   * about doubles because the batch grows too. */
  PER_REQUEST_SLOWDOWN("per-request-slowdown",
      "kernels 1.6x slower after 30% (bad kernel): ITL/TPOT ~x2, queue ~empty, GPU < 90%"),
  /** Prompt lengths shift up 4x mid-scenario at unchanged request rate. */
  LONG_PROMPTS("long-prompts",
      "prompt length x4 after 30% at the same request rate: TTFT up, prompt tokens/request up, "
          + "no saturation"),
  /** vLLM stays healthy while the Kafka consumer group falls behind. */
  KAFKA_BACKLOG("kafka-backlog",
      "producers outpace the inference-dispatcher consumers after 20%: kafka lag rises steadily, "
          + "vLLM healthy"),
  /** Healthy engine whose /metrics endpoint answers 503 for stretches of several scrapes. */
  SCRAPE_GAP("scrape-gap",
      "healthy engine; after 20% /metrics answers 503 for 90 s (6 scrapes at 15 s) every 10 min");

  /** Fraction of the scenario duration that is healthy before any change. */
  public static final double HEALTHY_PHASE = 0.2;

  /** Healthy arrival rate per engine, requests per second. */
  static final double BASE_RATE = 2.5;
  /** Healthy mean prompt length, tokens. */
  static final double BASE_PROMPT_MEAN = 8000;
  /** Healthy median output length, tokens. */
  static final double BASE_OUTPUT_MEDIAN = 28;
  /** Gateway in-flight cap per engine when nothing binds it. */
  static final int NO_CAP = 100_000;

  /** Start of a gap period, seconds after the healthy phase, modulo {@link #GAP_PERIOD_S}. */
  static final double GAP_OFFSET_S = 300;
  /** Gap repetition period, simulated seconds. */
  static final double GAP_PERIOD_S = 600;
  /** Length of one gap, simulated seconds (6 scrape intervals of 15 s). */
  static final double GAP_LENGTH_S = 90;

  private final String id;
  private final String description;

  Scenario(String id, String description) {
    this.id = id;
    this.description = description;
  }

  /** @return the command-line name, e.g. {@code peak-saturation} */
  public String id() {
    return id;
  }

  /** @return one line saying what the scenario produces */
  public String description() {
    return description;
  }

  /**
   * Looks a scenario up by its command-line name.
   *
   * @param name e.g. {@code kv-pressure} (case-insensitive)
   * @return the scenario
   * @throws IllegalArgumentException naming the known scenarios if there is none
   */
  public static Scenario byId(String name) {
    for (Scenario s : values()) {
      if (s.id.equals(name.toLowerCase(Locale.ROOT))) {
        return s;
      }
    }
    StringBuilder known = new StringBuilder();
    for (Scenario s : values()) {
      known.append(known.length() == 0 ? "" : ", ").append(s.id);
    }
    throw new IllegalArgumentException("unknown scenario \"" + name + "\"; known: " + known);
  }

  /**
   * Load and engine parameters at one moment.
   *
   * @param arrivalRate requests per second per engine offered by clients (Poisson)
   * @param promptMean mean prompt length, tokens (log-normal, sigma 0.5)
   * @param outputMedian median output length, tokens (log-normal, sigma 0.45); requests reaching
   *     {@code maxTokens} (2.5 x the median) finish with {@code finished_reason="length"}
   * @param slowdown multiplier on per-token and prefill compute time; 1 is normal
   * @param maxInFlight gateway cap on waiting + running per engine; arrivals beyond it are
   *     refused by the gateway (429) and never reach vLLM
   * @param kafkaProduceRate messages per second written to the {@code llm-requests} topic (all
   *     engines together); each consumed message becomes one request
   * @param kafkaConsumeCapacity messages per second the consumer group can take, infinite when it
   *     keeps up
   */
  public record Params(double arrivalRate, double promptMean, double outputMedian, double slowdown,
      int maxInFlight, double kafkaProduceRate, double kafkaConsumeCapacity) {}

  /**
   * @param f scenario fraction: simulated time / duration, clamped to [0, 1]
   * @param engines number of engines the requests are spread over
   * @return the parameters in effect at {@code f}
   */
  public Params params(double f, int engines) {
    double x = Math.max(0, Math.min(1, f));
    double rate = BASE_RATE;
    double prompt = BASE_PROMPT_MEAN;
    double out = BASE_OUTPUT_MEDIAN;
    double slow = 1;
    int cap = NO_CAP;
    double consume = Double.POSITIVE_INFINITY;
    switch (this) {
      case HEALTHY, SCRAPE_GAP -> { }
      case PEAK_SATURATION -> {
        rate = BASE_RATE + (14.0 - BASE_RATE) * ramp(x, HEALTHY_PHASE, 0.35);
        cap = 42;
      }
      case KV_PRESSURE -> {
        double r = ramp(x, HEALTHY_PHASE, 0.35);
        out = BASE_OUTPUT_MEDIAN + (1200 - BASE_OUTPUT_MEDIAN) * r;
        rate = BASE_RATE + (0.3 - BASE_RATE) * r;
        cap = 22;
      }
      case PER_REQUEST_SLOWDOWN -> slow = 1 + 0.6 * ramp(x, 0.30, 0.32);
      case LONG_PROMPTS -> {
        rate = 2.0;
        prompt = 3000 * (1 + 3 * ramp(x, 0.30, 0.32));
      }
      case KAFKA_BACKLOG -> {
        // Consumers can take 15% more than the healthy load; producers rise 40% above that.
        double healthyTotal = BASE_RATE * engines;
        consume = healthyTotal * 1.15;
        double produce =
            healthyTotal + (consume * 1.4 - healthyTotal) * ramp(x, HEALTHY_PHASE, 0.25);
        return new Params(produce / engines, prompt, out, slow, cap, produce, consume);
      }
      default -> throw new AssertionError(this);
    }
    return new Params(rate, prompt, out, slow, cap, rate * engines, consume);
  }

  /** 0 before {@code a}, 1 after {@code b}, linear between. */
  static double ramp(double x, double a, double b) {
    if (x <= a) {
      return 0;
    }
    if (x >= b) {
      return 1;
    }
    return (x - a) / (b - a);
  }

  /**
   * Whether the vLLM {@code /metrics} endpoint answers at a simulated moment. Only
   * {@link #SCRAPE_GAP} has gaps: after the healthy phase, {@value #GAP_LENGTH_S} s starting
   * {@value #GAP_OFFSET_S} s into every {@value #GAP_PERIOD_S} s period; during a gap the endpoint
   * answers 503, so Prometheus records {@code up == 0} and no samples.
   *
   * @param simSeconds simulated seconds since the scenario start
   * @param durationSeconds scenario duration, simulated seconds
   * @return true when /metrics serves normally
   */
  public boolean metricsAvailable(double simSeconds, double durationSeconds) {
    if (this != SCRAPE_GAP) {
      return true;
    }
    double start = HEALTHY_PHASE * durationSeconds;
    if (simSeconds < start) {
      return true;
    }
    double phase = (simSeconds - start) % GAP_PERIOD_S;
    return !(phase >= GAP_OFFSET_S && phase < GAP_OFFSET_S + GAP_LENGTH_S);
  }
}
