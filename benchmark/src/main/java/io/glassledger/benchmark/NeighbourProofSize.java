package io.glassledger.benchmark;

import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.block.BlockSpec;
import io.glassledger.core.ledger.Ledger;
import io.glassledger.verify.entry.Entry;
import io.glassledger.verify.entry.Mutation;
import io.glassledger.core.postree.TreeParams;
import io.glassledger.verify.proof.Digest;
import io.glassledger.verify.proof.ProofVerifier;
import io.glassledger.verify.proof.VerificationException;
import io.glassledger.core.store.InMemoryNodeStore;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Proof size next to large values (FORMAT.md §3, §9): a one-key current-value proof and a non-existence proof whose
 * neighbours hold 1 MiB values. A proof shows an unclaimed neighbour by its value's hash, so both stay a few hundred
 * bytes; before the value hash, the non-existence proof carried a whole neighbour value (over 1 MiB).
 *
 * <p>Its own in-memory ledger under {@link TreeParams#DEFAULT}: keys {@code n/00..n/07}, even ones holding 1 MiB
 * values, odd ones 16 bytes. The size depends on neither the key count nor the store, so it is the same in quick
 * and full runs.
 */
final class NeighbourProofSize {
    private static final int KEYS = 8;

    private NeighbourProofSize() {
    }

    static void measure(long seed, PrintStream out) throws VerificationException {
        SplittableRandom rnd = new SplittableRandom(seed);
        Ledger ledger = Ledger.openOrCreate(new InMemoryNodeStore(), TreeParams.DEFAULT, 0);
        List<Mutation> writes = new ArrayList<>();
        for (int i = 0; i < KEYS; i++) {
            byte[] v = new byte[i % 2 == 0 ? Entry.MAX_VALUE_BYTES : 16];
            rnd.nextBytes(v);
            writes.add(Mutation.put(key(i), Bytes.wrap(v)));
        }
        ledger.append(List.of(new BlockSpec(1, List.of(Bytes.utf8("neighbours")), writes)));
        Digest d = ledger.digest();
        long h = d.blockNo();

        Bytes small = key(3);
        byte[] current = ledger.proveKeys(List.of(small), h, h).encode();
        ProofVerifier.verifyCurrentValue(d, small, ledger.get(small).orElseThrow(), current);
        // Sorts right after n/04 (1 MiB) and before n/05: its path ends on a 1 MiB neighbour or beside one.
        Bytes absent = Bytes.utf8("n/04x");
        byte[] none = ledger.proveKeys(List.of(absent), h, h).encode();
        ProofVerifier.verifyNonExistence(d, absent, none);

        JsonLine.of("proof_size", "neighbours_1mib_bytes", current.length, "bytes")
                .with("proof", "current_value").with("neighbour_value_bytes", Entry.MAX_VALUE_BYTES).printTo(out);
        JsonLine.of("proof_size", "neighbours_1mib_bytes", none.length, "bytes")
                .with("proof", "non_existence").with("neighbour_value_bytes", Entry.MAX_VALUE_BYTES).printTo(out);
    }

    private static Bytes key(int i) {
        return Bytes.utf8(String.format("n/%02d", i));
    }
}
