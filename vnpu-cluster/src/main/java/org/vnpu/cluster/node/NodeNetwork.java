package org.vnpu.cluster.node;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real node's network: a network namespace of its own, joined to this host by a veth pair, so
 * that the node's IP is not loopback (the kubelet, the API server's connections to it, and the
 * pods' routes all need a real address). Node {@code i} has {@code 10.201.i.2} in the namespace,
 * the host {@code 10.201.i.1} on its end, and its pods {@code 10.88.i.0/24} behind the node's CNI
 * bridge. This host routes the pods' subnet and the Service range to the node, so that the control
 * plane's processes reach pods and ClusterIPs as a cluster's nodes would.
 *
 * @param index the node's number, 0 to 250
 * @param name the namespace's name
 */
public record NodeNetwork(int index, String name) {

  private static final Logger LOG = LoggerFactory.getLogger(NodeNetwork.class);

  /** The Services' ClusterIP range, as the API server is started with. */
  public static final String SERVICE_RANGE = "10.96.0.0/16";

  /** All pods of all nodes, for kube-proxy's idea of what is inside the cluster. */
  public static final String CLUSTER_POD_RANGE = "10.88.0.0/16";

  public NodeNetwork {
    if (index < 0 || index > 250) {
      throw new IllegalArgumentException("node network index " + index + " is not within 0..250");
    }
    if (!name.matches("[a-z0-9-]{1,40}")) {
      throw new IllegalArgumentException(
          "network namespace name '" + name + "' must be 1 to 40 of a-z, 0-9 and '-'");
    }
  }

  /** The address this host has on the node's link; the API server advertises it. */
  public String hostAddress() {
    return "10.201." + index + ".1";
  }

  /** The node's IP. */
  public String nodeAddress() {
    return "10.201." + index + ".2";
  }

  public String podSubnet() {
    return "10.88." + index + ".0/24";
  }

  /** The namespace's file, which nsenter enters. */
  public Path namespace() {
    return Path.of("/var/run/netns", name);
  }

  private String hostLink() {
    return "vnpu-h" + index;
  }

  /**
   * Makes the namespace, its link to this host and the routes; a namespace of the same name left by
   * an earlier run is removed first.
   *
   * @param servicesHere whether this host routes the Service range through this node (one node)
   */
  public NodeNetwork create(boolean servicesHere) throws IOException, InterruptedException {
    if (Files.exists(namespace())) {
      LOG.warn("removing network namespace {} left by an earlier run", name);
      delete();
    }
    String host = hostLink();
    ip("netns", "add", name);
    ip("link", "add", host, "type", "veth", "peer", "name", "eth0", "netns", name);
    ip("addr", "add", hostAddress() + "/24", "dev", host);
    ip("link", "set", host, "up");
    inside("ip", "addr", "add", nodeAddress() + "/24", "dev", "eth0");
    inside("ip", "link", "set", "eth0", "up");
    inside("ip", "link", "set", "lo", "up");
    inside("ip", "route", "add", "default", "via", hostAddress());
    ip("route", "replace", podSubnet(), "via", nodeAddress());
    if (servicesHere) {
      ip("route", "replace", SERVICE_RANGE, "via", nodeAddress());
    }
    LOG.info(
        "network namespace {}: node {}, host {} on {}, pods {}",
        name,
        nodeAddress(),
        hostAddress(),
        host,
        podSubnet());
    return this;
  }

  /** Removes the namespace; the link and the routes through it go with it. */
  public void delete() throws IOException, InterruptedException {
    if (Files.exists(namespace())) {
      ip("netns", "delete", name);
    }
    run(List.of("ip", "link", "delete", hostLink()), true);
  }

  /** Runs {@code command} in the namespace (only the network one). */
  public void inside(String... command) throws IOException, InterruptedException {
    List<String> all = new ArrayList<>(List.of("nsenter", "--net=" + namespace(), "--"));
    all.addAll(List.of(command));
    run(all, false);
  }

  private static void ip(String... arguments) throws IOException, InterruptedException {
    List<String> all = new ArrayList<>(List.of("ip"));
    all.addAll(List.of(arguments));
    run(all, false);
  }

  private static void run(List<String> command, boolean mayFail)
      throws IOException, InterruptedException {
    HostCommands.Result result = HostCommands.attempt(command);
    if (result.exit() != 0 && !mayFail) {
      throw new IOException(
          String.join(" ", command)
              + " failed: "
              + result.errors()
              + " (a real node needs root with CAP_NET_ADMIN and iproute2)");
    }
  }
}
