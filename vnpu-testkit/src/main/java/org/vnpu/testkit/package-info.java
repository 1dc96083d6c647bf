/** Helpers shared by the tests of every vNPU module; no dependency on any of them. */
package org.vnpu.testkit;
