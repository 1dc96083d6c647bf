package org.vnpu.kubelet;

import io.grpc.BindableService;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollIoHandler;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * gRPC over Unix domain sockets, as the kubelet speaks it: plaintext, epoll transport. One event
 * loop group of daemon threads serves every server and channel of the process.
 */
public final class UnixSockets {

  private static final EventLoopGroup LOOP =
      new MultiThreadIoEventLoopGroup(
          2, new DefaultThreadFactory("vnpu-uds", true), EpollIoHandler.newFactory());

  private UnixSockets() {}

  /**
   * Serves {@code services} on a socket at {@code path}, replacing a stale socket file left there.
   *
   * @throws UncheckedIOException when the socket cannot be bound
   */
  public static Server serve(Path path, BindableService... services) {
    try {
      Files.deleteIfExists(path);
      NettyServerBuilder builder =
          NettyServerBuilder.forAddress(new DomainSocketAddress(path.toString()))
              .bossEventLoopGroup(LOOP)
              .workerEventLoopGroup(LOOP)
              .channelType(EpollServerDomainSocketChannel.class);
      for (BindableService service : services) {
        builder.addService(service);
      }
      return builder.build().start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot serve gRPC on " + path + ": " + e.getMessage(), e);
    }
  }

  /** A channel to the socket at {@code path}; connects lazily, on the first call. */
  public static ManagedChannel dial(Path path) {
    return NettyChannelBuilder.forAddress(new DomainSocketAddress(path.toString()))
        .eventLoopGroup(LOOP)
        .channelType(EpollDomainSocketChannel.class)
        .overrideAuthority("localhost")
        .usePlaintext()
        .build();
  }
}
