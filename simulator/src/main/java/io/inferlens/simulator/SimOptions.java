package io.inferlens.simulator;

import java.net.InetSocketAddress;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parsers for the {@code simulate} command's options. They accept the same forms as the
 * server's options ({@code HOST:PORT}, Prometheus-style durations) but live here so that the
 * simulator depends on nothing of InferLens's server.
 */
public final class SimOptions {

  private static final Pattern DURATION_PART = Pattern.compile("(\\d+)(ms|s|m|h|d|w|y)");

  private SimOptions() {}

  /**
   * @param hostPort {@code HOST:PORT}, {@code :PORT} (every interface) or {@code [v6]:PORT}
   * @return the socket address; port 0 means "any free port"
   * @throws IllegalArgumentException naming {@code --listen} if the text is not of that shape
   *     or the port is outside 0..65535
   */
  public static InetSocketAddress parseListen(String hostPort) {
    int colon = hostPort.lastIndexOf(':');
    if (colon < 0) {
      throw new IllegalArgumentException("--listen \"" + hostPort + "\" must be HOST:PORT or :PORT");
    }
    String host = hostPort.substring(0, colon);
    int port;
    try {
      port = Integer.parseInt(hostPort.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--listen \"" + hostPort + "\" has no valid port", e);
    }
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("--listen port " + port + " is outside 0..65535");
    }
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    return host.isEmpty() ? new InetSocketAddress(port) : new InetSocketAddress(host, port);
  }

  /**
   * @param name the option, for the message (e.g. {@code --duration})
   * @param text a positive duration such as {@code 30m}, {@code 1h30m} or {@code 500ms}
   * @return the duration in milliseconds, &gt; 0
   * @throws IllegalArgumentException naming the option if the text is not a positive duration
   */
  public static long parseDurationMs(String name, String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    Matcher m = DURATION_PART.matcher(t);
    long total = 0;
    int pos = 0;
    try {
      while (m.find() && m.start() == pos) {
        long n = Long.parseLong(m.group(1));
        long unit;
        switch (m.group(2)) {
          case "ms": unit = 1L; break;
          case "s": unit = 1_000L; break;
          case "m": unit = 60_000L; break;
          case "h": unit = 3_600_000L; break;
          case "d": unit = 86_400_000L; break;
          case "w": unit = 7 * 86_400_000L; break;
          case "y": unit = 365 * 86_400_000L; break;
          default: throw new AssertionError(m.group(2));
        }
        total = Math.addExact(total, Math.multiplyExact(n, unit));
        pos = m.end();
      }
    } catch (ArithmeticException | NumberFormatException e) {
      pos = -1;
    }
    if (pos != t.length() || pos == 0 || total <= 0) {
      throw new IllegalArgumentException(name + ": invalid duration \"" + text
          + "\": must be positive, e.g. 30m, 2h, 1h30m");
    }
    return total;
  }
}
