package io.glassledger.verify.proof;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.glassledger.verify.codec.MalformedException;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hash;
import io.glassledger.verify.hash.Hashing;
import java.util.Arrays;
import java.util.List;

/**
 * Proof bytes come from a server that is not trusted. Decoding any bytes either gives a proof whose canonical
 * encoding is those very bytes, or throws {@link MalformedException}; verifying a decoded proof throws nothing but
 * {@link VerificationException}. The first byte picks the decoder (it is the type byte of FORMAT.md §10-§12; any
 * other value fuzzes a bare lower proof, §9, in the bytes after it). Inputs: ProofDecodeFuzzTestInputs/decode.
 */
class ProofDecodeFuzzTest {
    @FuzzTest(maxDuration = "10s")
    void decode(byte[] data) {
        if (data.length == 0) {
            return;
        }
        // A digest no honest proof leads to, and a claim about a key taken from the input.
        Hash noise = Hashing.raw(data);
        Bytes key = Bytes.of(data, data.length - Math.min(data.length, 3), data.length);
        List<KeyClaim> claims = List.of(KeyClaim.absent(key.length() == 0 ? Bytes.utf8("k") : key));
        try {
            switch (data[0]) {
                case KeysProof.TYPE -> keys(data, noise, claims);
                case AppendOnlyProof.TYPE -> appendOnly(data, noise);
                case HistoryProof.TYPE -> history(data, noise, claims.get(0).key());
                default -> lower(Arrays.copyOfRange(data, 1, data.length), claims);
            }
        } catch (MalformedException | VerificationException expected) {
            // the documented failures
        }
    }

    private static void keys(byte[] data, Hash noise, List<KeyClaim> claims) throws VerificationException {
        // The byte[] entry point reports malformed bytes as a VerificationException.
        try {
            ProofVerifier.verifyNonExistence(new Digest(0, noise), claims.get(0).key(), data);
        } catch (VerificationException expected) {
            // random digest
        }
        KeysProof p = KeysProof.decode(data);
        assertArrayEquals(data, p.encode(), "a keys proof has one encoding");
        try {
            ProofVerifier.verifyBatch(new Digest(p.blockNo(), noise), p.blockNo(), claims, p);
        } catch (VerificationException expected) {
            // random digest
        }
        if (p.anchor() instanceof KeysProof.AtDigest a) {
            // Against the digest it implies, a proof that yields a root verifies.
            Hash lowerRoot = p.lower().computeRoot(claims, null);
            ProofVerifier.verifyBatch(new Digest(p.blockNo(), Hashing.digest(p.blockNo(), lowerRoot, a.tail())),
                    p.blockNo(), claims, p);
        }
    }

    private static void appendOnly(byte[] data, Hash noise) throws VerificationException {
        AppendOnlyProof p = AppendOnlyProof.decode(data);
        assertArrayEquals(data, p.encode(), "an append-only proof has one encoding");
        ProofVerifier.verifyAppendOnly(new Digest(p.b1(), noise), new Digest(p.b2(), noise), p);
    }

    private static void history(byte[] data, Hash noise, Bytes key) throws VerificationException {
        try {
            ProofVerifier.verifyHistory(new Digest(1, noise), key, 3, List.of(), data);
        } catch (VerificationException expected) {
            // random digest
        }
        HistoryProof p = HistoryProof.decode(data);
        assertArrayEquals(data, p.encode(), "a history proof has one encoding");
        ProofVerifier.verifyHistory(new Digest(p.head().blockNo(), noise), key, 1 + p.older().size(),
                List.of(new Version(null, 1)), p);
    }

    private static void lower(byte[] data, List<KeyClaim> claims) throws VerificationException {
        LowerProof p = LowerProof.decode(data);
        assertArrayEquals(data, p.encode(), "a lower proof has one encoding");
        p.computeRoot(claims, new io.glassledger.verify.entry.Entry[claims.size()]);
    }
}
