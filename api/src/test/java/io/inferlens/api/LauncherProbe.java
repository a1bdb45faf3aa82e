package io.inferlens.api;

import java.lang.management.ManagementFactory;

/**
 * The main class of the stand-in jar that {@link LauncherTest} runs through the launcher: prints
 * its PID, its JVM options, the malloc environment and its arguments, one per line.
 */
public final class LauncherProbe {
  private LauncherProbe() {}

  /**
   * Prints {@code pid=N}, one {@code jvm=OPTION} per JVM option, {@code env=NAME=VALUE} for the
   * two malloc variables and {@code arg=A} per argument.
   *
   * @param args echoed back
   */
  public static void main(String[] args) {
    System.out.println("pid=" + ProcessHandle.current().pid());
    for (String o : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      System.out.println("jvm=" + o);
    }
    for (String name : new String[] {"MALLOC_ARENA_MAX", "MALLOC_MMAP_THRESHOLD_"}) {
      System.out.println("env=" + name + "=" + System.getenv(name));
    }
    for (String a : args) {
      System.out.println("arg=" + a);
    }
  }
}
