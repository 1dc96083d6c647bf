package org.vnpu.core.ledger;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * Nodes in a fixed order, with what a decision reads of every node kept in primitive columns
 * indexed by row: a decision over 20,000 nodes then streams through a few arrays instead of reading
 * each node's objects wherever the heap put them (docs/benchmarks.md, issue 22). A node's row is
 * replaced when its state is; an owner's {@linkplain #column derived column} follows. Not
 * thread-safe: the owner serialises access, as it does for a {@link Ledger}.
 */
public final class NodeTable {

  private final NodeState[] nodes;
  private Map<String, Integer> rows; // by node name, built on the first replace
  private final int[] chips;
  private final double[] utilization;
  private final long[] leastChipMemoryMiB;
  private final long[] mostChipMemoryMiB;
  private final long[] hostFreeCpuMilli;
  private final long[] hostFreeMemoryMiB;
  private final boolean[] hostUntracked;
  private Column column;

  private NodeTable(int size) {
    nodes = new NodeState[size];
    chips = new int[size];
    utilization = new double[size];
    leastChipMemoryMiB = new long[size];
    mostChipMemoryMiB = new long[size];
    hostFreeCpuMilli = new long[size];
    hostFreeMemoryMiB = new long[size];
    hostUntracked = new boolean[size];
  }

  /** A table of {@code nodes}, in their order. */
  public static NodeTable of(Collection<NodeState> nodes) {
    NodeTable table = new NodeTable(nodes.size());
    int row = 0;
    for (NodeState node : nodes) {
      table.fill(row++, node);
    }
    return table;
  }

  public int size() {
    return nodes.length;
  }

  public NodeState node(int row) {
    return nodes[row];
  }

  /**
   * Replaces the state of the node of the same name (the first row of that name, where a caller
   * gave several); false when the table has no such node.
   */
  boolean replace(NodeState node) {
    if (rows == null) {
      rows = new HashMap<>(nodes.length * 2);
      for (int r = 0; r < nodes.length; r++) {
        rows.putIfAbsent(nodes[r].name(), r);
      }
    }
    Integer row = rows.get(node.name());
    if (row == null) {
      return false;
    }
    fill(row, node);
    return true;
  }

  private void fill(int row, NodeState node) {
    nodes[row] = node;
    chips[row] = node.chips().size();
    utilization[row] = node.utilization();
    leastChipMemoryMiB[row] = node.leastChipMemoryMiB();
    mostChipMemoryMiB[row] = node.mostChipMemoryMiB();
    hostFreeCpuMilli[row] = node.hostFree().cpuMilli();
    hostFreeMemoryMiB[row] = node.hostFree().memoryMiB();
    hostUntracked[row] = node.hostFree() == HostResources.UNTRACKED;
  }

  /** {@link NodeState#chips()}' size. */
  public int chips(int row) {
    return chips[row];
  }

  /** {@link NodeState#utilization()}. */
  public double utilization(int row) {
    return utilization[row];
  }

  /** {@link NodeState#leastChipMemoryMiB()}. */
  public long leastChipMemoryMiB(int row) {
    return leastChipMemoryMiB[row];
  }

  /** {@link NodeState#mostChipMemoryMiB()}. */
  public long mostChipMemoryMiB(int row) {
    return mostChipMemoryMiB[row];
  }

  /** The node's free host resources less {@code demand}, as {@link HostResources#minus} gives. */
  public HostResources hostFreeMinus(int row, HostResources demand) {
    return hostUntracked[row]
        ? HostResources.UNTRACKED
        : new HostResources(
            hostFreeCpuMilli[row] - demand.cpuMilli(), hostFreeMemoryMiB[row] - demand.memoryMiB());
  }

  /** Derives one row of a {@link Column} from the row's node. */
  @FunctionalInterface
  public interface RowDeriver {
    /**
     * Writes {@code node}'s numbers into {@code summary} from {@code summaryAt} on and into each
     * array of {@code details} from {@code detailAt} on.
     */
    void derive(NodeState node, double[] summary, int summaryAt, double[][] details, int detailAt);
  }

  /**
   * The numbers {@code owner} derives from each node with {@code derive}: a summary of {@code
   * summaryWidth} per row, which a decision reads for every node, and {@code details} arrays of
   * {@code detailWidth} per row, of which a decision reads one for fewer nodes; each in an array of
   * its own, so that reading the summaries streams through memory and the rows of one detail lie
   * close together. Kept with the table while the same owner asks (one owner at a time, in practice
   * the decisions' fragmentation meter); a row is derived on its first read and again after its
   * node changed.
   */
  public Column column(
      Object owner, int summaryWidth, int details, int detailWidth, RowDeriver derive) {
    Column current = column;
    if (current == null || current.owner != owner) {
      current = new Column(owner, summaryWidth, details, detailWidth, derive);
      column = current;
    }
    return current;
  }

  /** One owner's numbers per node, row after row in a summary array and detail arrays. */
  public final class Column {
    private final Object owner;
    private final RowDeriver derive;
    private final int summaryWidth;
    private final int detailWidth;
    private final double[] summary;
    private final double[][] details;
    private final NodeState[] derivedFrom;

    private Column(
        Object owner, int summaryWidth, int details, int detailWidth, RowDeriver derive) {
      this.owner = owner;
      this.derive = derive;
      this.summaryWidth = summaryWidth;
      this.detailWidth = detailWidth;
      this.summary = new double[nodes.length * summaryWidth];
      this.details = new double[details][nodes.length * detailWidth];
      this.derivedFrom = new NodeState[nodes.length];
    }

    /** Every row's summary, row {@code r}'s from {@code r * summaryWidth} on. */
    public double[] summary() {
      return summary;
    }

    /** Every row's detail {@code d}, row {@code r}'s from {@code r * detailWidth} on. */
    public double[] detail(int d) {
      return details[d];
    }

    /** Derives {@code row} first if its node changed since, or it was never derived. */
    public void refresh(int row) {
      NodeState node = nodes[row];
      if (derivedFrom[row] != node) {
        derive.derive(node, summary, row * summaryWidth, details, row * detailWidth);
        derivedFrom[row] = node;
      }
    }
  }
}
