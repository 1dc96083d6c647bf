/**
 * The {@code vnpu} command line: one runnable jar, every component and tool a subcommand. Commands
 * parse options, call the core and print; they hold no decisions of their own.
 */
package org.vnpu.cli;
