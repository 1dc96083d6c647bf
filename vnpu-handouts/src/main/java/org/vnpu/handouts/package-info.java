/**
 * What a container on a vNPU node receives, and the files the node agent keeps for it: the device
 * nodes, mounts and environment of a hand-out ({@link org.vnpu.handouts.Handouts}), and the state
 * directory with the chips' regions and the containers' shim configs and books ({@link
 * org.vnpu.handouts.NodeFiles}). Shared by the device plugin (Allocate) and the DRA driver (CDI).
 */
package org.vnpu.handouts;
