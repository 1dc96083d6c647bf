package org.vnpu.core.chip;

import java.util.Collection;
import java.util.Collections;
import java.util.Set;
import java.util.TreeSet;

/**
 * The chip types a vNPU may use: any, or one of a few catalog names (a pod that runs on 910B3 and
 * 910B4 alike says {@code huawei.com/vnpu-use-npu-type: 910B3,910B4}).
 *
 * @param names the accepted catalog names, sorted; empty for any type
 */
public record ChipTypes(Set<String> names) {

  /** Any chip type. */
  public static final ChipTypes ANY = new ChipTypes(Set.of());

  public ChipTypes {
    // any type is asked of every chip a pod is weighed against: Set.of() answers isEmpty at once
    names = names.isEmpty() ? Set.of() : Collections.unmodifiableSortedSet(new TreeSet<>(names));
  }

  /** These types; {@link #ANY} when there are none. */
  public static ChipTypes of(Collection<String> names) {
    return names.isEmpty() ? ANY : new ChipTypes(Set.copyOf(names));
  }

  /** Exactly one type. */
  public static ChipTypes of(String name) {
    return new ChipTypes(Set.of(name));
  }

  /** Whether any chip type will do. */
  public boolean any() {
    return names.isEmpty();
  }

  /** Whether a chip of type {@code chipType} will do. */
  public boolean accepts(String chipType) {
    return names.isEmpty() || names.contains(chipType);
  }

  /** {@code any}, or the names joined by commas as the annotation writes them. */
  @Override
  public String toString() {
    return any() ? "any" : String.join(",", names);
  }
}
