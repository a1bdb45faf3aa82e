package io.inferlens.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class SimulateCommandTest {

  @Test
  void listPrintsEveryScenarioWithADescription() {
    PrintStream saved = System.out;
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    int rc;
    try {
      System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
      rc = new CommandLine(new SimulateCommand()).execute("--list");
    } finally {
      System.setOut(saved);
    }
    assertThat(rc).isZero();
    String out = buf.toString(StandardCharsets.UTF_8);
    for (Scenario s : Scenario.values()) {
      assertThat(out).contains(s.id() + " ").contains(s.description());
    }
    for (Stack s : Stack.values()) {
      assertThat(out).contains(s.id() + " ").contains(s.description());
    }
  }

  @Test
  void enginesBeyondWhatTheStackLabelsExitWith2NamingTheLimit() {
    PrintStream saved = System.err;
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    int rc;
    try {
      System.setErr(new PrintStream(buf, true, StandardCharsets.UTF_8));
      rc = new CommandLine(new SimulateCommand()).execute("--stack", "vllm-0.6", "--engines", "2");
    } finally {
      System.setErr(saved);
    }
    assertThat(rc).isEqualTo(2);
    assertThat(buf.toString(StandardCharsets.UTF_8)).contains("--engines 2")
        .contains("1..1").contains("vllm-0.6");
  }

  @Test
  void badOptionsExitWith2() {
    PrintStream saved = System.err;
    try {
      System.setErr(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
      assertThat(new CommandLine(new SimulateCommand()).execute("--scenario", "nope")).isEqualTo(2);
      assertThat(new CommandLine(new SimulateCommand()).execute("--speed", "0")).isEqualTo(2);
      assertThat(new CommandLine(new SimulateCommand()).execute("--listen", "nope")).isEqualTo(2);
      assertThat(new CommandLine(new SimulateCommand()).execute("--duration", "0s")).isEqualTo(2);
      assertThat(new CommandLine(new SimulateCommand()).execute("--duration", "1x")).isEqualTo(2);
      assertThat(new CommandLine(new SimulateCommand()).execute("--stack", "vllm-0.1"))
          .isEqualTo(2);
      assertThat(new CommandLine(new SimulateCommand()).execute("--engines", "0")).isEqualTo(2);
      assertThat(new CommandLine(new SimulateCommand()).execute("--engines", "65")).isEqualTo(2);
    } finally {
      System.setErr(saved);
    }
  }
}
