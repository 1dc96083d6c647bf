/**
 * What a simulation reports: per policy the unallocated compute at arrived = 100 % over seeds,
 * beside the FGD paper's published numbers; a CSV row per arrival; a plot of unallocated against
 * arrived compute.
 */
package org.vnpu.sim.report;
