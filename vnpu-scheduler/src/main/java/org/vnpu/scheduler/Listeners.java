package org.vnpu.scheduler;

import java.net.InetSocketAddress;
import java.util.Objects;
import javax.net.ssl.SSLContext;

/**
 * Where the extender listens. Plain HTTP serves Volcano's verbs (its extender client presents no
 * client certificate), {@code /healthz}, {@code /readyz} and {@code /metrics}. With mutual TLS,
 * kube-scheduler's verbs are served only on the TLS port, to clients whose certificate the
 * context's trust admits; without it, on plain HTTP beside Volcano's.
 *
 * @param plain the plain HTTP address; port 0 picks a free one
 * @param tls the TLS address, or null for none
 * @param tlsContext the server's certificate and the clients it trusts, or null for none
 */
public record Listeners(InetSocketAddress plain, InetSocketAddress tls, SSLContext tlsContext) {

  public Listeners {
    Objects.requireNonNull(plain, "plain");
    if ((tls == null) != (tlsContext == null)) {
      throw new IllegalArgumentException("a TLS address needs a TLS context and the reverse");
    }
  }

  /** Every path on plain HTTP at {@code address}. */
  public static Listeners plain(InetSocketAddress address) {
    return new Listeners(address, null, null);
  }

  /** These listeners, with kube-scheduler's verbs moved to mutual TLS at {@code address}. */
  public Listeners withMutualTls(InetSocketAddress address, SSLContext context) {
    return new Listeners(plain, Objects.requireNonNull(address), Objects.requireNonNull(context));
  }

  public boolean mutualTls() {
    return tls != null;
  }
}
