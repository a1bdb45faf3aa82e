package io.inferlens.api;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code inferlens rules export --url http://host:9201 [--for 5m] [--window 5m] [--match SEL]…
 * [--external-url URL] [--output FILE]}: fetches {@code GET /api/v1/rules/export} from a running
 * server and prints the rule file, or writes it to {@code FILE}. Exit codes: 0 written, 1 the
 * server could not be reached or failed (5xx), 2 bad options or a request the server refused
 * (4xx, its message printed).
 */
@Command(name = "rules", mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = "Prometheus alerting rules from a running InferLens server.",
    subcommands = {RulesCommand.Export.class})
final class RulesCommand implements Runnable {

  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** {@code rules export}. */
  @Command(name = "export", mixinStandardHelpOptions = true,
      versionProvider = VersionProvider.class,
      description = "Write Prometheus alerting rules per target with today's learned thresholds"
          + " (GET /api/v1/rules/export of a running server).")
  static final class Export implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Option(names = "--url", required = true, paramLabel = "URL",
        description = "The running InferLens server, e.g. http://inferlens:9201.")
    String url;

    @Option(names = "--for", paramLabel = "DURATION",
        description = "How long a rule's condition must hold before it fires "
            + "(default: the server's --for, 5m).")
    String forDuration;

    @Option(names = "--window", paramLabel = "DURATION",
        description = "Range of every rate() in the rules (default: the server's --rate-window,"
            + " 5m).")
    String window;

    @Option(names = "--match", paramLabel = "SELECTOR",
        description = "Only targets whose labels match this series selector, e.g. "
            + "'{job=\"vllm\"}'. Repeatable.")
    List<String> match = new ArrayList<>();

    @Option(names = "--external-url", paramLabel = "URL",
        description = "Where users reach InferLens, the base of each alert's runbook_url "
            + "(default: --url).")
    String externalUrl;

    @Option(names = "--output", paramLabel = "FILE",
        description = "Write the rules here instead of printing them.")
    Path output;

    @Override
    public Integer call() throws InterruptedException {
      PrintWriter err = spec.commandLine().getErr();
      URI uri;
      try {
        uri = URI.create(url.replaceAll("/+$", "") + "/api/v1/rules/export?" + query());
        if (uri.getScheme() == null || uri.getHost() == null) {
          throw new IllegalArgumentException("not an absolute URL");
        }
      } catch (IllegalArgumentException e) {
        err.println("inferlens rules export: --url \"" + url + "\" must be an absolute http(s)"
            + " URL such as http://inferlens:9201 (" + e.getMessage() + ")");
        return 2;
      }
      HttpResponse<String> r;
      try {
        r = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build().send(
            HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(120)).GET().build(),
            HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
      } catch (IOException e) {
        err.println("inferlens rules export: cannot reach " + uri + ": " + e);
        return 1;
      }
      if (r.statusCode() != 200) {
        err.println("inferlens rules export: " + uri + " answered " + r.statusCode() + ": "
            + r.body());
        return r.statusCode() >= 400 && r.statusCode() < 500 ? 2 : 1;
      }
      if (output == null) {
        PrintWriter out = spec.commandLine().getOut();
        out.print(r.body());
        out.flush();
        return 0;
      }
      try {
        Files.writeString(output, r.body(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        err.println("inferlens rules export: cannot write --output " + output + ": " + e);
        return 1;
      }
      return 0;
    }

    private String query() {
      List<String> q = new ArrayList<>();
      add(q, "for", forDuration);
      add(q, "window", window);
      add(q, "external_url", externalUrl == null ? url.replaceAll("/+$", "") : externalUrl);
      for (String m : match) {
        add(q, "match[]", m);
      }
      return String.join("&", q);
    }

    private static void add(List<String> q, String name, String value) {
      if (value != null) {
        q.add(URLEncoder.encode(name, StandardCharsets.UTF_8) + "="
            + URLEncoder.encode(value, StandardCharsets.UTF_8));
      }
    }
  }
}
