package org.vnpu.exporter;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;

/**
 * How one exporter runs; {@code vnpu exporter --help} explains each.
 *
 * @param node this node's name in the API server
 * @param address where {@code /metrics} and {@code /healthz} are served
 * @param stateDirectory the device plugin's state directory (the containers' books)
 * @param pollInterval how often the driver and the node's registration are read
 * @param serverSideNodeFilter whether the pod informer selects this node's pods on the server
 */
public record ExporterSettings(
    String node,
    InetSocketAddress address,
    Path stateDirectory,
    Duration pollInterval,
    boolean serverSideNodeFilter) {}
