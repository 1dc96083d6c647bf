/**
 * Thin fabric8 adapters shared by the deployables (device plugin, scheduler, exporter): they turn
 * the contract of {@code vnpu-api} into API-server calls and nothing more.
 */
package org.vnpu.kube;
