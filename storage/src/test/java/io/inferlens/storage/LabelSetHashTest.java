package io.inferlens.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Label-set hashes spread structured series (hosts x GPUs x metrics) over distinct values. */
class LabelSetHashTest {

  @Test
  void structuredSeriesRarelyShareAHash() {
    Set<Integer> hashes = new HashSet<>();
    int n = 0;
    for (int host = 0; host < 500; host++) {
      for (int gpu = 0; gpu < 4; gpu++) {
        for (int metric = 0; metric < 50; metric++) {
          // The shape of the bench's DCGM series (gen_workload.py): gpu, device and PCI bus id
          // change together, which a linear polynomial hash cancels out.
          LabelSet ls = LabelSet.of("__name__", "DCGM_FI_DEV_" + metric, "instance",
              "10.1" + (host / 250) + "." + (host % 250) + ":9400", "gpu", Integer.toString(gpu),
              "device", "nvidia" + gpu,
              "pci_bus_id", String.format("00000000:%02X:00.0", 0x18 + 0x1A * gpu),
              "Hostname", String.format("gpu-node-%04d", host), "job", "dcgm-exporter");
          hashes.add(ls.hashCode());
          n++;
        }
      }
    }
    // 100,000 label sets; a good 32-bit hash collides about n^2 / 2^33 ≈ 1 time.
    assertThat(n - hashes.size()).isLessThan(20);
  }
}
