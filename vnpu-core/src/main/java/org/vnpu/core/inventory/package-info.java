/**
 * A node's chips as the engine sees them: the device plugin's published registration completed with
 * the catalog's figures.
 */
package org.vnpu.core.inventory;
