package io.glassledger.verify.proof;

import io.glassledger.verify.hash.Bytes;

/** One version of a key: its value (null for a deletion) and the block that wrote it. */
public record Version(Bytes value, long blockNo) {
}
