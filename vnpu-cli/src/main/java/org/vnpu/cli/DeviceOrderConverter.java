package org.vnpu.cli;

import org.vnpu.dra.DeviceOrder;

/** Reads {@code --device-order}: binpack or spread. */
final class DeviceOrderConverter extends WireValueConverter<DeviceOrder> {

  DeviceOrderConverter() {
    super(DeviceOrder.class);
  }
}
