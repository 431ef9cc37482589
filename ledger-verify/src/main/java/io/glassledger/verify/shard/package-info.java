/** Which shard owns a key: the hash partitioning every client and server computes the same way (FORMAT §17). */
package io.glassledger.verify.shard;
