package io.inferlens.simulator;

import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.common.MediaType;
import com.linecorp.armeria.server.Server;
import com.linecorp.armeria.server.ServerBuilder;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Serves a {@link SimulationModel} over HTTP with Armeria and advances it in the background:
 * {@code /metrics} (the serving engine as one {@link Stack} renders it; 503 during a simulated
 * scrape gap), {@code /dcgm/metrics},
 * {@code /kafka/metrics}, and {@code /} (a one-screen status). A ticker thread steps the model
 * every {@value #TICK_MS} ms of wall time until simulated time equals {@code speed} × elapsed wall
 * time, so {@code speed 60} plays a simulated hour in a wall-clock minute.
 */
public final class SimulatorServer implements AutoCloseable {

  /** Wall-clock period of the stepping thread, milliseconds. */
  public static final long TICK_MS = 50;
  /** Most wall time one tick accounts for, seconds; beyond it simulated time falls behind. */
  static final double MAX_CATCH_UP_S = 0.25;
  /** Content type of Prometheus text format 0.0.4, as the exporters send it. */
  static final MediaType PROM_TEXT = MediaType.parse("text/plain; version=0.0.4; charset=utf-8");

  private final SimulationModel model;
  private final Stack stack;
  private final String modelName;
  private final String hostname;
  private final double speed;
  private final double createdEpochSeconds;
  private final ScheduledExecutorService ticker;
  private final Server server;
  /** Wall time of the previous tick; only the ticker thread touches it after start. */
  private long lastTickNanos;
  /** Simulated seconds the model should have reached; only the ticker thread touches it. */
  private double targetSeconds;

  private SimulatorServer(SimulationModel model, Stack stack, String modelName, String hostname,
      double speed, InetSocketAddress listen) {
    this.model = model;
    this.stack = stack;
    this.modelName = modelName;
    this.hostname = hostname;
    this.speed = speed;
    this.createdEpochSeconds = System.currentTimeMillis() / 1000.0;
    ServerBuilder sb = Server.builder().http(listen);
    sb.gracefulShutdownTimeout(Duration.ZERO, Duration.ofSeconds(1));
    sb.service("/metrics", (ctx, req) -> engineResponse());
    sb.service("/dcgm/metrics", (ctx, req) -> {
      synchronized (model) {
        return HttpResponse.of(HttpStatus.OK, PROM_TEXT, Exposition.dcgm(model, hostname));
      }
    });
    sb.service("/kafka/metrics", (ctx, req) -> {
      synchronized (model) {
        return HttpResponse.of(HttpStatus.OK, PROM_TEXT, Exposition.kafka(model));
      }
    });
    sb.service("/", (ctx, req) -> HttpResponse.of(HttpStatus.OK, MediaType.PLAIN_TEXT_UTF_8,
        status()));
    this.server = sb.build();
    this.ticker = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "inferlens-sim-ticker");
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * Starts serving vLLM 0.13 ({@link Stack#VLLM_0_13}) and stepping; see
   * {@link #start(SimulationModel, Stack, String, String, double, InetSocketAddress)}.
   *
   * @param model the model to play; this server steps it from now on
   * @param modelName {@code model_name} label value
   * @param hostname {@code Hostname} label of the DCGM series
   * @param speed simulated seconds per wall-clock second, &gt; 0
   * @param listen address to bind; port 0 picks a free port
   * @return the running server
   * @throws IllegalArgumentException if the speed is not positive
   */
  public static SimulatorServer start(SimulationModel model, String modelName, String hostname,
      double speed, InetSocketAddress listen) {
    return start(model, Stack.VLLM_0_13, modelName, hostname, speed, listen);
  }

  /**
   * Starts serving and stepping.
   *
   * @param model the model to play; this server steps it from now on
   * @param stack the serving stack whose {@code /metrics} is imitated
   * @param modelName {@code model_name} label value
   * @param hostname {@code Hostname} label of the DCGM series
   * @param speed simulated seconds per wall-clock second, &gt; 0
   * @param listen address to bind; port 0 picks a free port
   * @return the running server
   * @throws IllegalArgumentException if the speed is not positive or the model has more engines
   *     than the stack can label ({@link Stack#maxEngines()})
   */
  public static SimulatorServer start(SimulationModel model, Stack stack, String modelName,
      String hostname, double speed, InetSocketAddress listen) {
    if (!(speed > 0)) {
      throw new IllegalArgumentException("speed must be > 0");
    }
    if (model.engines().size() > stack.maxEngines()) {
      throw new IllegalArgumentException("--engines " + model.engines().size() + ": "
          + stack.id() + " exposes at most " + stack.maxEngines() + " engine(s)");
    }
    SimulatorServer s = new SimulatorServer(model, stack, modelName, hostname, speed, listen);
    s.server.start().join();
    s.lastTickNanos = System.nanoTime();
    s.targetSeconds = model.nowSeconds();
    s.ticker.scheduleAtFixedRate(s::tick, TICK_MS, TICK_MS, TimeUnit.MILLISECONDS);
    return s;
  }

  private HttpResponse engineResponse() {
    synchronized (model) {
      if (!model.metricsAvailable()) {
        return HttpResponse.of(HttpStatus.SERVICE_UNAVAILABLE, MediaType.PLAIN_TEXT_UTF_8,
            "simulated scrape gap (scenario " + model.scenario().id() + ")\n");
      }
      return HttpResponse.of(HttpStatus.OK, PROM_TEXT,
          stack.render(model, modelName, createdEpochSeconds));
    }
  }

  private String status() {
    synchronized (model) {
      StringBuilder sb = new StringBuilder();
      sb.append(String.format(Locale.ROOT,
          "InferLens simulator: %s, scenario %s, simulated %.0f s of %.0f s (%.0f%%), speed %s%n",
          stack.id(), model.scenario().id(), model.scenarioSeconds(), model.durationSeconds(),
          100 * model.fraction(), speed));
      for (SimulationModel.Engine e : model.engines()) {
        sb.append(String.format(Locale.ROOT,
            "engine %s: running %d, waiting %d, kv %.2f, gpu %d%%, preemptions %d, ITL %.1f ms%n",
            e.label(), e.running(), e.waiting(), e.kvUsage(), e.gpuUtilPercent(), e.preemptions(),
            e.lastItlSeconds() * 1000));
      }
      sb.append("kafka lag: ").append(model.kafka().lagSum()).append('\n');
      sb.append("/metrics ").append(model.metricsAvailable() ? "up" : "in a scrape gap (503)")
          .append("; also /dcgm/metrics (Hostname=").append(hostname).append("), /kafka/metrics\n");
      return sb.toString();
    }
  }

  private void tick() {
    try {
      long now = System.nanoTime();
      double wallS = (now - lastTickNanos) / 1e9;
      lastTickNanos = now;
      // A slow or paused machine slows the simulation down instead of making it catch up in one
      // burst that would hold the lock (and starve scrapes) for seconds.
      targetSeconds += Math.min(wallS, MAX_CATCH_UP_S) * speed;
      while (true) {
        synchronized (model) {
          long behind = Math.round((targetSeconds - model.nowSeconds())
              / SimulationModel.STEP_SECONDS);
          if (behind <= 0) {
            return;
          }
          model.advance(Math.min(behind, 200)); // release the lock now and then for scrapes
        }
        Thread.yield();
      }
    } catch (RuntimeException e) {
      // Never let the scheduled task die silently: the simulation would freeze.
      System.err.println("inferlens simulate: step failed: " + e);
    } catch (Error e) {
      // e.g. NoClassDefFoundError when the classes were rebuilt under a running JVM: say so, then
      // let the task end (the executor would otherwise swallow it without a trace).
      System.err.println("inferlens simulate: simulation stopped: " + e);
      throw e;
    }
  }

  /** @return the bound TCP port */
  public int port() {
    return server.activeLocalPort();
  }

  /** @return the model being played (synchronize on it to read) */
  public SimulationModel model() {
    return model;
  }

  /** Stops stepping and serving. */
  @Override
  public void close() {
    ticker.shutdownNow();
    server.stop().join();
  }
}
