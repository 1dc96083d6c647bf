package org.vnpu.scheduler;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Clock;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.signing.AllocationSigner;
import org.vnpu.api.signing.AllocationVerifier;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.deviceplugin.ScheduledPods;
import org.vnpu.kube.ExtenderCertificates;

/** A scheduler on loopback with a plain port and a mutual-TLS port of {@code certificates}. */
final class MutualTlsExtender {

  private MutualTlsExtender() {}

  static SchedulerService start(KubernetesClient client, ExtenderCertificates certificates)
      throws IOException {
    PayloadCodec codec = new PayloadCodec();
    return SchedulerService.start(
        Listeners.plain(new InetSocketAddress("127.0.0.1", 0))
            .withMutualTls(new InetSocketAddress("127.0.0.1", 0), certificates.serverContext()),
        new Scheduler(
            client,
            ChipCatalog.builtIn(),
            new AllocationSigner(ScheduledPods.KEY, codec),
            new AllocationVerifier(ScheduledPods.VERIFYING, codec),
            SchedulerSettings.defaults(),
            Clock.systemUTC()),
        client,
        Leadership.alone());
  }
}
