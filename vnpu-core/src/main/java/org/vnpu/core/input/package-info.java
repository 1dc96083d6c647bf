/** Reading the YAML files users hand to vNPU, with errors that name the file, field and value. */
package org.vnpu.core.input;
