package org.vnpu.sim;

import java.time.Instant;
import java.util.List;
import org.vnpu.core.inventory.NodeInventory;
import org.vnpu.core.ledger.HostResources;
import org.vnpu.core.ledger.Ledger;

/**
 * The nodes of a simulated cluster.
 *
 * @param nodes every node with its host capacity
 */
public record SimCluster(List<Node> nodes) {

  /** A node and its host capacity. */
  public record Node(NodeInventory inventory, HostResources capacity) {}

  /** The instant simulated nodes report their heartbeat at, and decisions are made at. */
  public static final Instant EPOCH = Instant.EPOCH;

  public SimCluster {
    nodes = List.copyOf(nodes);
  }

  /** An empty ledger of these nodes, all alive. */
  public Ledger newLedger() {
    Ledger ledger = new Ledger();
    for (Node node : nodes) {
      ledger.putNode(node.inventory(), node.capacity());
      ledger.heartbeat(node.inventory().node(), EPOCH);
    }
    return ledger;
  }

  /** Chip compute of the whole cluster, in percent of one chip. */
  public long computePercent() {
    return nodes.stream().mapToLong(n -> 100L * n.inventory().chips().size()).sum();
  }

  public int chips() {
    return nodes.stream().mapToInt(n -> n.inventory().chips().size()).sum();
  }
}
