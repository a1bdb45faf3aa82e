package io.inferlens.simulator;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code inferlens simulate}: serves one serving stack's {@code /metrics} ({@link Stack}: vLLM
 * 0.6, 0.10 or 0.13, SGLang, TGI), DCGM and kafka_exporter metrics driven by a queueing model of a
 * serving engine ({@link SimulationModel}) playing one {@link Scenario}. For demos and end-to-end
 * tests of the diagnosis: point Prometheus (or any remote-write sender) at {@code /metrics},
 * {@code /dcgm/metrics} and {@code /kafka/metrics}. Exit codes: 0 normal stop, 2 bad options.
 */
@Command(name = "simulate", mixinStandardHelpOptions = true,
    description = "Serve a simulated serving engine's /metrics (vLLM, SGLang or TGI; plus "
        + "/dcgm/metrics and /kafka/metrics) for a scenario, e.g. simulate --scenario "
        + "peak-saturation --stack sglang --speed 60.")
public final class SimulateCommand implements Callable<Integer> {

  @Option(names = "--scenario", defaultValue = "healthy", paramLabel = "NAME",
      description = "Scenario to play; --list shows them (default: ${DEFAULT-VALUE}).")
  String scenario;

  @Option(names = "--stack", defaultValue = "vllm-0.13", paramLabel = "STACK",
      description = "Serving stack whose /metrics is imitated: vllm-0.6, vllm-0.10, vllm-0.13, "
          + "sglang, tgi; --list shows them (default: ${DEFAULT-VALUE}).")
  String stack;

  @Option(names = "--engines", paramLabel = "N",
      description = "Data-parallel engines (engine=\"0\"..\"N-1\"), 1-64 on vllm-0.10 and "
          + "vllm-0.13; 1 on the stacks without an engine label (default: 2 on vllm-0.13, "
          + "else 1).")
  Integer engines;

  @Option(names = "--listen", defaultValue = ":8000", paramLabel = "HOST:PORT",
      description = "Address to serve on; ':8000' means every interface "
          + "(default: ${DEFAULT-VALUE}).")
  String listen;

  @Option(names = "--speed", defaultValue = "1", paramLabel = "F",
      description = "Simulated seconds per wall-clock second; 60 plays an hour in a minute "
          + "(default: ${DEFAULT-VALUE}).")
  double speed;

  @Option(names = "--seed", defaultValue = "1", paramLabel = "N",
      description = "Random seed; the same seed replays the same run (default: ${DEFAULT-VALUE}).")
  long seed;

  @Option(names = "--duration", defaultValue = "1h", paramLabel = "DURATION",
      description = "Scenario length in simulated time, e.g. 1h, 30m; afterwards the final phase "
          + "continues (default: ${DEFAULT-VALUE}).")
  String duration;

  @Option(names = "--model-name", defaultValue = "Qwen/Qwen3-32B-FP8", paramLabel = "NAME",
      description = "model_name label value (default: ${DEFAULT-VALUE}).")
  String modelName;

  @Option(names = "--hostname", paramLabel = "NAME",
      description = "Hostname label of the DCGM series (default: this machine's host name).")
  String hostname;

  @Option(names = "--list", description = "Print the scenarios and the stacks, and exit.")
  boolean list;

  /**
   * Runs the simulator until the JVM is stopped (SIGINT/SIGTERM), or prints the scenario and
   * stack lists.
   *
   * @return exit code: 0 normal stop or after {@code --list}, 2 bad options
   * @throws InterruptedException if interrupted while serving
   */
  @Override
  public Integer call() throws InterruptedException {
    if (list) {
      System.out.println("scenarios (--scenario):");
      for (Scenario s : Scenario.values()) {
        System.out.printf("  %-22s %s%n", s.id(), s.description());
      }
      System.out.println("stacks (--stack):");
      for (Stack s : Stack.values()) {
        System.out.printf("  %-22s %s%n", s.id(), s.description());
      }
      return 0;
    }
    Scenario sc;
    Stack st;
    int engineCount;
    InetSocketAddress addr;
    double durationS;
    try {
      sc = Scenario.byId(scenario);
      st = Stack.byId(stack);
      engineCount = engines == null ? st.defaultEngines() : engines;
      if (engineCount < 1 || engineCount > st.maxEngines()) {
        throw new IllegalArgumentException("--engines " + engineCount + " is outside 1.."
            + st.maxEngines() + " for --stack " + st.id()
            + (st.maxEngines() == 1 ? " (its series carry no engine label)" : ""));
      }
      addr = SimOptions.parseListen(listen);
      durationS = SimOptions.parseDurationMs("--duration", duration) / 1000.0;
      if (!(speed > 0) || Double.isInfinite(speed)) {
        throw new IllegalArgumentException("--speed must be a positive number");
      }
      if (!(durationS > 0)) {
        throw new IllegalArgumentException("--duration must be positive");
      }
    } catch (IllegalArgumentException e) {
      System.err.println("inferlens simulate: " + e.getMessage());
      return 2;
    }
    String host = hostname != null ? hostname : localHostName();
    SimulationModel model = new SimulationModel(sc, durationS, seed, engineCount);
    SimulatorServer server = SimulatorServer.start(model, st, modelName, host, speed, addr);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      server.close();
      stopped.countDown();
    }, "inferlens-sim-shutdown"));
    System.out.printf("InferLens simulator: %s with %d engine(s), scenario %s (%s), %s simulated, "
        + "speed %s, seed %d%n", st.id(), engineCount, sc.id(), sc.description(), duration, speed,
        seed);
    System.out.printf("listening on port %d: %s http://%s:%d/metrics, DCGM /dcgm/metrics "
        + "(Hostname=%s), Kafka /kafka/metrics%n", server.port(), st.id(), host, server.port(),
        host);
    System.out.printf("Prometheus: one scrape job per path (metrics_path /metrics, /dcgm/metrics, "
        + "/kafka/metrics) with target %s:%d; simulated time runs %sx wall time.%n", host,
        server.port(), speed);
    stopped.await();
    return 0;
  }

  /** @return this machine's host name, or {@code localhost} if it cannot be resolved */
  static String localHostName() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      return "localhost";
    }
  }
}
