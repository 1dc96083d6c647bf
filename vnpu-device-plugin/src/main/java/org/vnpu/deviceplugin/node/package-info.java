/**
 * The device plugin's duties toward the cluster: publish the node's inventory and heartbeat, follow
 * the driver's view of the chips, and remove the files of pods that are gone.
 */
package org.vnpu.deviceplugin.node;
