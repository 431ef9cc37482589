package io.glassledger.core.txn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.glassledger.verify.codec.MalformedException;

/**
 * A replicated shard's log entries (FORMAT.md §15.5) reach every replica from the group's leader, and a replica's
 * engine decodes each one it applies: the decoder either returns the entry whose encoding is the input, or throws
 * {@link MalformedException} (the replica then fails, rather than apply something it cannot read). The quick origin
 * check, which the leader runs on every entry Ratis hands back, never throws and agrees with the decoder.
 */
class ReplicatedEntryFuzzTest {
    @FuzzTest(maxDuration = "10s")
    void decode(byte[] data) {
        long[] origin = ReplicatedLog.origin(data);
        try {
            ReplicatedLog.Entry e = ReplicatedLog.decode(data);
            assertArrayEquals(data, ReplicatedLog.encode(e.incarnation(), e.seq(), e.records()),
                    "an entry has one encoding");
            assertEquals(e.incarnation(), origin[0]);
            assertEquals(e.seq(), origin[1]);
        } catch (MalformedException expected) {
            // the documented failure
        }
    }
}
