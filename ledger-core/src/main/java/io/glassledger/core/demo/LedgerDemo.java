package io.glassledger.core.demo;

import io.glassledger.core.hash.Bytes;
import io.glassledger.core.ledger.BlockSpec;
import io.glassledger.core.ledger.Ledger;
import io.glassledger.core.postree.Mutation;
import io.glassledger.core.postree.TreeParams;
import io.glassledger.core.proof.AppendOnlyProof;
import io.glassledger.core.proof.Digest;
import io.glassledger.core.proof.KeysProof;
import io.glassledger.core.proof.ProofVerifier;
import io.glassledger.core.proof.VerificationException;
import io.glassledger.core.store.RocksDbNodeStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The README's main command until the server exists: opens (or creates) a ledger in ./data, commits a few blocks,
 * prints the digest, and proves and verifies a key against it. Run it twice: history and the append-only proof
 * from the previous run's digest show that the ledger only grows.
 */
public final class LedgerDemo {
    private LedgerDemo() {
    }

    public static void main(String[] args) throws VerificationException {
        Path dir = Path.of(args.length > 0 ? args[0] : "data");
        try (RocksDbNodeStore store = new RocksDbNodeStore(dir)) {
            Ledger ledger = Ledger.openOrCreate(store, TreeParams.DEFAULT, System.currentTimeMillis());
            Digest before = ledger.digest();
            System.out.println("ledger at " + dir.toAbsolutePath() + ", head " + before);
            List<BlockSpec> blocks = new ArrayList<>();
            long ts = Math.max(System.currentTimeMillis(), ledger.head().block().timestamp());
            for (int b = 0; b < 3; b++) {
                List<Mutation> writes = new ArrayList<>();
                for (int i = 0; i < 5; i++) {
                    writes.add(Mutation.put(Bytes.utf8("account/" + i),
                            Bytes.utf8("balance=" + (100 * (before.blockNo() + b + 1) + i))));
                }
                blocks.add(new BlockSpec(ts, List.of(Bytes.utf8("demo-tx-" + (before.blockNo() + b + 1))), writes));
            }
            ledger.append(blocks);
            Digest digest = ledger.digest();
            System.out.println("committed 3 blocks; digest " + digest);

            Bytes key = Bytes.utf8("account/3");
            Bytes value = ledger.get(key).orElseThrow();
            KeysProof proof = ledger.proveKeys(List.of(key), digest.blockNo(), digest.blockNo());
            byte[] encoded = proof.encode();
            ProofVerifier.verifyCurrentValue(digest, key, value, KeysProof.decode(encoded));
            System.out.println("verified: " + key.utf8String() + " = " + value.utf8String() + " is current at block "
                    + digest.blockNo() + " (proof " + encoded.length + " bytes)");

            try {
                ProofVerifier.verifyCurrentValue(digest, key, Bytes.utf8("balance=1000000"), proof);
                throw new IllegalStateException("a false claim verified");
            } catch (VerificationException expected) {
                System.out.println("rejected: a false value for the same proof (" + expected.getMessage() + ")");
            }

            AppendOnlyProof ao = ledger.proveAppendOnly(before.blockNo(), digest.blockNo());
            ProofVerifier.verifyAppendOnly(before, digest, AppendOnlyProof.decode(ao.encode()));
            System.out.println("verified: block " + before.blockNo() + " → " + digest.blockNo() + " is append-only ("
                    + ao.encode().length + " bytes)");
            System.out.println("history of " + key.utf8String() + ": " + ledger.history(key, 5, digest.blockNo()).size()
                    + " versions (run again to add more)");
        }
    }
}
