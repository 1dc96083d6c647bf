/**
 * The FGD paper's experiment protocol: inflate the workload by sampling with replacement up to a
 * multiple of cluster capacity, shuffle, let pods arrive one by one without departures, and record
 * allocation and fragmentation after every arrival; one run per policy and seed.
 */
package org.vnpu.sim.experiment;
