/**
 * {@code ledger-cli}: the command-line client over the SDK, and the offline check of saved proof files. Depends on
 * the SDK's public API only.
 */
package io.glassledger.client.cli;
