/** JMH benchmarks of the placement engine; see docs/benchmarks.md for how to run them. */
package org.vnpu.bench;
