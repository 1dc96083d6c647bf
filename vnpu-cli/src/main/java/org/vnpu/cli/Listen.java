package org.vnpu.cli;

import java.net.InetSocketAddress;

/** Reads a {@code --listen HOST:PORT} value. */
final class Listen {

  private Listen() {}

  /** The address; an input error naming the value when it is not HOST:PORT. */
  static InetSocketAddress parse(String listen) {
    int colon = listen.lastIndexOf(':');
    int port;
    try {
      port = colon < 0 ? -1 : Integer.parseInt(listen.substring(colon + 1));
    } catch (NumberFormatException e) {
      port = -1;
    }
    if (port < 0 || port > 65535) {
      throw new InputException("--listen=" + listen + " is not HOST:PORT with a port 0..65535");
    }
    return new InetSocketAddress(listen.substring(0, colon), port);
  }
}
