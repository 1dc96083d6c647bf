/**
 * Validation outcomes as values: a problem names the thing, its value and the rule it breaks, and a
 * validation reports every problem at once.
 */
package org.vnpu.core.validation;
