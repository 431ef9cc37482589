package io.glassledger.core.proof;

import io.glassledger.core.hash.Bytes;

/** One version of a key: its value (null for a deletion) and the block that wrote it. */
public record Version(Bytes value, long blockNo) {
}
