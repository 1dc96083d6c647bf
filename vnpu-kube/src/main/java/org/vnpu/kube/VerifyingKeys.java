package org.vnpu.kube;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.api.signing.KeySet;
import org.vnpu.api.signing.VerifyingKey;

/**
 * The public keys allocations may be signed with, named by their key IDs: the entries of the
 * ConfigMap the scheduler keeps them in ({@link SigningKeys}), read through the API server or as
 * the files of a mounted volume. A key ID not seen yet makes it read them again, at most once per
 * {@link #RELOAD}, so a key added by a rotation is found without a restart.
 */
public final class VerifyingKeys implements KeySet {

  private static final Logger LOG = LoggerFactory.getLogger(VerifyingKeys.class);
  public static final Duration RELOAD = Duration.ofSeconds(5);

  private final String source;
  private final Supplier<Map<String, String>> entries;
  private final Clock clock;
  private Map<String, VerifyingKey> keys = Map.of();
  private Instant loaded = Instant.MIN;

  private VerifyingKeys(String source, Supplier<Map<String, String>> entries, Clock clock) {
    this.source = source;
    this.entries = entries;
    this.clock = clock;
  }

  /** The keys in a directory, one per file named by its key ID (a mounted ConfigMap). */
  public static VerifyingKeys inDirectory(Path directory, Clock clock) {
    return new VerifyingKeys(directory.toString(), () -> files(directory), clock);
  }

  /** The keys in a ConfigMap, read through the API server. */
  public static VerifyingKeys inConfigMap(
      KubernetesClient client, String namespace, String name, Clock clock) {
    return new VerifyingKeys(
        "ConfigMap " + namespace + "/" + name,
        () -> {
          ConfigMap map = client.configMaps().inNamespace(namespace).withName(name).get();
          return map == null || map.getData() == null ? Map.of() : map.getData();
        },
        clock);
  }

  @Override
  public synchronized Optional<VerifyingKey> find(String id) {
    VerifyingKey key = keys.get(id);
    Instant now = clock.instant();
    if (key == null && !now.isBefore(loaded.plus(RELOAD))) {
      loaded = now;
      keys = read();
      key = keys.get(id);
    }
    return Optional.ofNullable(key);
  }

  /** The IDs of the valid keys the source holds, read again now (invalid ones are logged). */
  public synchronized Set<String> readIds() {
    loaded = clock.instant();
    keys = read();
    return keys.keySet();
  }

  private Map<String, VerifyingKey> read() {
    Map<String, VerifyingKey> read = new HashMap<>();
    try {
      entries
          .get()
          .forEach(
              (name, encoded) -> {
                try {
                  VerifyingKey key = VerifyingKey.decode(encoded);
                  if (key.id().equals(name)) {
                    read.put(name, key);
                  } else {
                    LOG.warn("{}: entry {} holds key {}; ignored", source, name, key.id());
                  }
                } catch (IllegalArgumentException e) {
                  LOG.warn("{}: entry {}: {}; ignored", source, name, e.getMessage());
                }
              });
    } catch (RuntimeException e) {
      LOG.warn("cannot read the verifying keys in {}: {}", source, e.toString());
      return keys;
    }
    LOG.info("verifying keys in {}: {}", source, read.keySet());
    return Map.copyOf(read);
  }

  private static Map<String, String> files(Path directory) {
    Map<String, String> files = new HashMap<>();
    try (Stream<Path> listed = Files.list(directory)) {
      for (Path file : listed.toList()) {
        String name = file.getFileName().toString();
        // A mounted ConfigMap's files link into its ..data directory: followed, dot names skipped.
        if (!name.startsWith(".") && Files.isRegularFile(file)) {
          files.put(name, Files.readString(file));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files;
  }
}
