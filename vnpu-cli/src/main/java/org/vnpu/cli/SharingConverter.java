package org.vnpu.cli;

import org.vnpu.dra.Sharing;

/** Reads {@code --sharing}: profiles, partitionable or consumable. */
final class SharingConverter extends WireValueConverter<Sharing> {

  SharingConverter() {
    super(Sharing.class);
  }
}
