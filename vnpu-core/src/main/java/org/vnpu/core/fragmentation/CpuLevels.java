package org.vnpu.core.fragmentation;

import java.util.Arrays;
import java.util.List;

/**
 * The distinct host CPU needs of a mix's shape groups, as levels: nodes with as much CPU left at
 * one level host the same shapes. Per level it keeps the probability, per group, that a shape of
 * the group needs at most that CPU, so that a decision looks it up instead of working it out.
 */
final class CpuLevels {

  private final long[] cpu;
  private final double[][] withinByLevel;

  CpuLevels(List<ShapeGroup> groups) {
    this.cpu =
        groups.stream().flatMapToLong(g -> Arrays.stream(g.cpu())).distinct().sorted().toArray();
    this.withinByLevel = new double[cpu.length + 1][];
    for (int level = 0; level <= cpu.length; level++) {
      long cpuFree = level == 0 ? -1 : cpu[level - 1];
      withinByLevel[level] = new double[groups.size()];
      for (int g = 0; g < groups.size(); g++) {
        withinByLevel[level][g] = groups.get(g).probabilityWithin(cpuFree);
      }
    }
  }

  /** How many levels there are, the level below every need included. */
  int count() {
    return withinByLevel.length;
  }

  /** How many of the shapes' distinct host CPU needs {@code cpuFree} covers. */
  int level(long cpuFree) {
    int i = Arrays.binarySearch(cpu, cpuFree);
    return i >= 0 ? i + 1 : -i - 1;
  }

  /** Per group, the probability that a shape of it needs at most {@code cpuFree} host CPU. */
  double[] within(long cpuFree) {
    return withinByLevel[level(cpuFree)];
  }

  /** Per group, the probability that a shape of it needs no more CPU than {@code level} covers. */
  double[] atLevel(int level) {
    return withinByLevel[level];
  }
}
