package org.vnpu.api.signing;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/** The public keys allocations may be signed with, by ID. */
public interface KeySet {

  /** The key {@code id}, when it is one of the set. */
  Optional<VerifyingKey> find(String id);

  /** A fixed set. */
  static KeySet of(List<VerifyingKey> keys) {
    Map<String, VerifyingKey> byId =
        keys.stream().collect(Collectors.toMap(VerifyingKey::id, Function.identity()));
    return id -> Optional.ofNullable(byId.get(id));
  }
}
