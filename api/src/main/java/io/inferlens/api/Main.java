package io.inferlens.api;

import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The command line: {@code java -jar inferlens.jar serve [options]}. Exit codes: 0 normal stop,
 * 1 the store could not be opened, 2 bad options.
 */
@Command(name = "inferlens", mixinStandardHelpOptions = true, version = "InferLens 0.1.0",
    description = "Stores Prometheus remote-write samples and explains slow LLM inference.",
    subcommands = {Main.Serve.class, io.inferlens.api.sim.SimulateCommand.class,
        CommandLine.HelpCommand.class})
public final class Main implements Runnable {

  /**
   * @param args command line arguments
   */
  public static void main(String[] args) {
    System.exit(new CommandLine(new Main()).execute(args));
  }

  @Override
  public void run() {
    new CommandLine(this).usage(System.out);
  }

  /** {@code serve}: run the service until SIGTERM/SIGINT. */
  @Command(name = "serve", mixinStandardHelpOptions = true,
      description = "Run the InferLens server: remote write in, Prometheus-style API out.")
  static final class Serve implements Callable<Integer> {

    @Option(names = "--listen", defaultValue = ":9201", paramLabel = "HOST:PORT",
        description = "Address to listen on; ':9201' means every interface (default: ${DEFAULT-VALUE}).")
    String listen;

    @Option(names = "--data-dir", defaultValue = "inferlens-data", paramLabel = "DIR",
        description = "Directory of the RocksDB store; created if missing (default: ${DEFAULT-VALUE}).")
    Path dataDir;

    @Option(names = "--retention", defaultValue = "30d", paramLabel = "DURATION",
        description = "How long samples are kept, e.g. 30d, 12h, 2w; older samples are refused "
            + "with 400 and deleted hourly (default: ${DEFAULT-VALUE}).")
    String retention;

    @Option(names = "--max-request-bytes", defaultValue = "32MiB", paramLabel = "SIZE",
        description = "Largest remote-write body accepted, compressed and decoded alike; larger "
            + "gets 413 (default: ${DEFAULT-VALUE}).")
    String maxRequestBytes;

    @Option(names = "--max-future", defaultValue = "10m", paramLabel = "DURATION",
        description = "How far ahead of this server's clock a sample may be before it is refused "
            + "(default: ${DEFAULT-VALUE}).")
    String maxFuture;

    @Option(names = "--wal-sync", defaultValue = "false",
        description = "fsync the write-ahead log before acknowledging each write. Without it an "
            + "acknowledged write survives a crash of InferLens but not of the machine "
            + "(default: ${DEFAULT-VALUE}).")
    boolean walSync;

    @Override
    public Integer call() throws Exception {
      ServerConfig config;
      try {
        config = new ServerConfig(ServerConfig.parseListen(listen), dataDir,
            Units.parseDurationMs(retention), Units.parseBytes(maxRequestBytes),
            Units.parseDurationMs(maxFuture), walSync);
      } catch (IllegalArgumentException e) {
        System.err.println("inferlens serve: " + e.getMessage());
        return 2;
      }
      InferLensServer server;
      try {
        server = InferLensServer.start(config, Clock.systemUTC());
      } catch (io.inferlens.storage.StorageException e) {
        System.err.println("inferlens serve: cannot open the store in " + dataDir + ": "
            + e.getMessage());
        return 1;
      }
      CountDownLatch stopped = new CountDownLatch(1);
      Runtime.getRuntime().addShutdownHook(new Thread(() -> {
        server.close();
        stopped.countDown();
      }, "inferlens-shutdown"));
      System.out.println("InferLens listening on port " + server.port() + ", data in "
          + dataDir.toAbsolutePath() + "; remote_write URL: http://HOST:" + server.port()
          + "/api/v1/write");
      stopped.await();
      return 0;
    }
  }
}
