/**
 * Programs that use the Java SDK as README.md shows them; each runs against a real server in the module's
 * integration tests. They depend on client-sdk only, never on server or RocksDB classes.
 */
package io.glassledger.examples;
