package org.vnpu.cli;

import org.vnpu.api.PlacementPolicy;

/** Reads a placement policy in the spelling of the pod annotations. */
final class PlacementPolicyConverter extends WireValueConverter<PlacementPolicy> {

  PlacementPolicyConverter() {
    super(PlacementPolicy.class);
  }
}
