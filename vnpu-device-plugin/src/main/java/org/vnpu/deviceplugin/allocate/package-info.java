/**
 * Allocate: identify the pod strictly (node lock, binding, bind phase, signature), hand out its
 * next container's vNPUs (devices, mounts, environment, the shim's config) and record progress on
 * the pod and the node.
 */
package org.vnpu.deviceplugin.allocate;
