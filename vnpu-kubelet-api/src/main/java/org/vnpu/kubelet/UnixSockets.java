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
import java.nio.charset.StandardCharsets;
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

  /**
   * The longest path a Unix socket address holds on Linux: {@code sun_path} is 108 bytes, the last
   * one the terminating NUL (unix(7)).
   */
  public static final int MAX_PATH_BYTES = 107;

  private UnixSockets() {}

  /**
   * Returns {@code path} if a Unix socket can be bound or dialled at it.
   *
   * @throws IllegalArgumentException naming the path, its length and the limit, when it is longer
   *     than {@link #MAX_PATH_BYTES} (the kernel's own answer, "File name too long", names neither)
   */
  public static Path requireFits(Path path) {
    int bytes = path.toString().getBytes(StandardCharsets.UTF_8).length;
    if (bytes > MAX_PATH_BYTES) {
      throw new IllegalArgumentException(
          "the socket path "
              + path
              + " is "
              + bytes
              + " bytes long; a Unix socket's path holds at most "
              + MAX_PATH_BYTES
              + ": use a shorter directory");
    }
    return path;
  }

  /**
   * Serves {@code services} on a socket at {@code path}, replacing a stale socket file left there.
   *
   * @throws UncheckedIOException when the socket cannot be bound
   * @throws IllegalArgumentException when the path is too long for a socket ({@link #requireFits})
   */
  public static Server serve(Path path, BindableService... services) {
    requireFits(path);
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

  /**
   * A channel to the socket at {@code path}; connects lazily, on the first call.
   *
   * @throws IllegalArgumentException when the path is too long for a socket ({@link #requireFits})
   */
  public static ManagedChannel dial(Path path) {
    requireFits(path);
    return NettyChannelBuilder.forAddress(new DomainSocketAddress(path.toString()))
        .eventLoopGroup(LOOP)
        .channelType(EpollDomainSocketChannel.class)
        .overrideAuthority("localhost")
        .usePlaintext()
        .build();
  }
}
