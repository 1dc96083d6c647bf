package org.vnpu.api.codec;

import java.time.Instant;
import java.util.List;
import org.vnpu.api.AiCorePolicy;
import org.vnpu.api.HandshakeState;
import org.vnpu.api.SplitMode;
import org.vnpu.api.payload.ContainerAllocation;
import org.vnpu.api.payload.HandoutRecord;
import org.vnpu.api.payload.NodeHandshake;
import org.vnpu.api.payload.NodeLock;
import org.vnpu.api.payload.NodeLockSet;
import org.vnpu.api.payload.NodeRegistration;
import org.vnpu.api.payload.PendingContainers;
import org.vnpu.api.payload.PodAllocation;
import org.vnpu.api.payload.PodRef;
import org.vnpu.api.payload.RegisteredChip;
import org.vnpu.api.payload.VnpuAssignment;

/** One realistic example of each payload, shared by the golden and signing tests. */
public final class Payloads {

  public static final Instant T0 = Instant.parse("2026-11-29T15:00:00Z");

  private Payloads() {}

  public static NodeRegistration registration() {
    return new NodeRegistration(
        SplitMode.SOFT,
        20,
        List.of(
            new RegisteredChip(0, "VDIE-0a1b", "910B3", 65536, 20, 7, true, 0, "mesh-0"),
            new RegisteredChip(1, "VDIE-0a1c", "910B3", 65536, 20, 7, false, 1, "mesh-0")));
  }

  public static NodeHandshake handshake() {
    return new NodeHandshake(HandshakeState.REPORTED, T0);
  }

  public static NodeLockSet lock() {
    return new NodeLockSet(
        List.of(
            new NodeLock(
                "7c1d-uid",
                "team-a",
                "infer-0",
                T0,
                T0.plusSeconds(300),
                "bm9uY2U",
                "3f2a9c1d0b7e",
                List.of(1),
                0)),
        List.of(
            new HandoutRecord(
                "b3RoZXI",
                "3f2a9c1d0b7e",
                new PodRef("9e4f-uid", "team-a", "infer-1"),
                "{\"v\":1,\"podUid\":\"9e4f-uid\",\"...\":\"the signed allocation\"}",
                "server",
                List.of("VDIE-0a1b-2"),
                T0.plusSeconds(4),
                new PodRef("5a7b-uid", "team-a", "infer-2"))));
  }

  public static PendingContainers pending() {
    return new PendingContainers(List.of("warmup", "server"));
  }

  public static PodAllocation allocation() {
    return new PodAllocation(
        "7c1d-uid",
        "npu-node-1",
        List.of(
            new ContainerAllocation(
                "warmup",
                true,
                List.of(
                    new VnpuAssignment(
                        0,
                        "VDIE-0a1b",
                        "910B3",
                        4096,
                        0,
                        SplitMode.SOFT,
                        false,
                        AiCorePolicy.BEST_EFFORT,
                        null))),
            new ContainerAllocation(
                "server",
                false,
                List.of(
                    new VnpuAssignment(
                        0,
                        "VDIE-0a1b",
                        "910B3",
                        16384,
                        30,
                        SplitMode.SOFT,
                        false,
                        AiCorePolicy.ELASTIC,
                        null)))));
  }
}
