package io.glassledger.core.ledger;

import io.glassledger.verify.block.BlockSpec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.entry.Mutation;
import io.glassledger.core.postree.TreeParams;
import io.glassledger.verify.proof.AppendOnlyProof;
import io.glassledger.verify.proof.Digest;
import io.glassledger.verify.proof.KeyClaim;
import io.glassledger.verify.proof.KeysProof;
import io.glassledger.verify.proof.ProofVerifier;
import io.glassledger.verify.proof.VerificationException;
import io.glassledger.core.store.InMemoryNodeStore;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LedgerProofSmokeTest {
    static Bytes k(int i) {
        return Bytes.utf8("key-" + i);
    }

    @Test
    void proofsVerifyAndTamperingFails() throws Exception {
        Ledger l = Ledger.openOrCreate(new InMemoryNodeStore(), new TreeParams(4, 32, 4, 16), 1000);
        for (int b = 1; b <= 20; b++) {
            List<Mutation> w = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                int key = (b * 7 + i * 13) % 200;
                w.add(Mutation.put(k(key), Bytes.utf8("v" + b + "-" + key)));
            }
            w.sort((x, y) -> x.key().compareTo(y.key()));
            List<Mutation> dedup = new ArrayList<>();
            for (Mutation m : w) {
                if (dedup.isEmpty() || !dedup.get(dedup.size() - 1).key().equals(m.key())) {
                    dedup.add(m);
                }
            }
            l.append(List.of(new BlockSpec(1000 + b, List.of(Bytes.utf8("tx" + b)), dedup)));
        }
        Digest d = l.digest();
        assertEquals(20, d.blockNo());
        Bytes key = k(27);
        Bytes v = l.get(key).orElseThrow();
        KeysProof p = l.proveKeys(List.of(key), 20, 20);
        ProofVerifier.verifyCurrentValue(d, key, v, p);
        byte[] enc = p.encode();
        System.out.println("current-value proof bytes: " + enc.length);
        ProofVerifier.verifyCurrentValue(d, key, v, KeysProof.decode(enc));
        assertThrows(VerificationException.class, () -> ProofVerifier.verifyCurrentValue(d, key, Bytes.utf8("x"), p));
        assertThrows(VerificationException.class, () -> ProofVerifier.verifyCurrentValue(l.digest(19), key, v, p));
        int accepted = 0;
        for (int i = 0; i < enc.length; i++) {
            for (int bit = 0; bit < 8; bit++) {
                byte[] t = enc.clone();
                t[i] ^= (byte) (1 << bit);
                try {
                    ProofVerifier.verifyCurrentValue(d, key, v, KeysProof.decode(t));
                    accepted++;
                    System.out.println("ACCEPTED flip at " + i + " bit " + bit);
                } catch (VerificationException | RuntimeException e) {
                    // expected
                }
            }
        }
        assertEquals(0, accepted);
        KeysProof absent = l.proveKeys(List.of(Bytes.utf8("nope")), 20, 20);
        ProofVerifier.verifyNonExistence(d, Bytes.utf8("nope"), absent);
        KeysProof incl = l.proveKeys(List.of(key), 5, 20);
        ProofVerifier.verifyInclusion(d, 5, key, l.get(key, 5).orElseThrow(), incl);
        List<Bytes> keys = new ArrayList<>();
        List<KeyClaim> claims = new ArrayList<>();
        for (int i = 0; i < 210; i += 3) {
            keys.add(k(i));
            claims.add(new KeyClaim(k(i), l.get(k(i), 12).orElse(null)));
        }
        KeysProof batch = l.proveKeys(keys, 12, 20);
        ProofVerifier.verifyBatch(d, 12, claims, KeysProof.decode(batch.encode()));
        for (int b1 = 0; b1 < 20; b1++) {
            for (int b2 = b1 + 1; b2 <= 20; b2++) {
                AppendOnlyProof ap = l.proveAppendOnly(b1, b2);
                ProofVerifier.verifyAppendOnly(l.digest(b1), l.digest(b2), AppendOnlyProof.decode(ap.encode()));
            }
        }
        Ledger.History h = l.proveHistory(key, 5, 20);
        System.out.println("history " + h.versions());
        ProofVerifier.verifyHistory(d, key, 5, h.versions(), h.proof());
    }
}
