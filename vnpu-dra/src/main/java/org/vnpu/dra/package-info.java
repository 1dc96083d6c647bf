/**
 * The DRA driver ({@code vnpu dra-driver}): vNPUs through Kubernetes Dynamic Resource Allocation
 * instead of the device plugin and the scheduler extender. {@link org.vnpu.dra.NodeDevices} decides
 * what this node offers (pure), {@link org.vnpu.dra.ResourceSlices} writes it as {@code
 * resource.k8s.io/v1} objects, {@link org.vnpu.dra.ClaimPreparer} turns allocated claims into CDI
 * devices with the device plugin's hand-outs, {@link org.vnpu.dra.DraDriver} runs it all. See
 * docs/dra.md.
 */
package org.vnpu.dra;
