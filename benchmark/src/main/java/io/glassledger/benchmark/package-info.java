/**
 * Benchmark harnesses, run by {@code benchmark/run}. Plain Java programs that print one JSON object per line on
 * stdout. They use ledger-core's public API only, as an application would, and never change its behaviour.
 */
package io.glassledger.benchmark;
