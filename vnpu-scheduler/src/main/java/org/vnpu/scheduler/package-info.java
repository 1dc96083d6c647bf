/**
 * {@code vnpu scheduler}: the placement engine behind the Volcano and kube-scheduler extender
 * protocols, with a ledger kept from the API server and the decisions written as signed pod
 * annotations and a node lock.
 */
package org.vnpu.scheduler;
