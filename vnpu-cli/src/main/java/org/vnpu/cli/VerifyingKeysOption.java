package org.vnpu.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.signing.AllocationVerifier;
import org.vnpu.kube.VerifyingKeys;
import picocli.CommandLine.Option;

/**
 * The {@code --verifying-keys} option of the node agents: the scheduler's public keys, the
 * ConfigMap it keeps them in mounted as a directory (ADR 0011).
 */
final class VerifyingKeysOption {

  @Option(
      names = "--verifying-keys",
      paramLabel = "DIR",
      defaultValue = "/etc/vnpu/verifying-keys",
      description =
          "Directory of the public keys the scheduler's allocation signatures are verified with,"
              + " one file per key ID (the scheduler's ConfigMap, mounted; read again when a"
              + " signature names a key not seen yet). Default: ${DEFAULT-VALUE}.")
  Path directory;

  /** The verifier of the keys in the directory. */
  AllocationVerifier verifier() {
    if (!Files.isDirectory(directory)) {
      throw new InputException(
          "--verifying-keys "
              + directory
              + " is not a directory (mount the scheduler's verifying-keys ConfigMap there)");
    }
    return new AllocationVerifier(
        VerifyingKeys.inDirectory(directory, Clock.systemUTC()), new PayloadCodec());
  }
}
