package io.glassledger.verify.proof;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.glassledger.verify.codec.MalformedException;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hash;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Hostile nesting. Decoding and verifying a proof nested arbitrarily deep must fail with a
 * {@link MalformedException} or {@link VerificationException}, never with a {@link StackOverflowError}, on a thread
 * with the JVM's default stack (1 MB on 64-bit Linux and macOS): an SDK or auditor verifies untrusted bytes on
 * ordinary threads. (The decoder once accepted nesting up to 4096, which a 1 MB stack cannot decode recursively.)
 */
class ProofDecodingLimitsTest {
    private static final long DEFAULT_STACK = 1L << 20;

    /** A keys proof whose lower part is a chain of {@code depth} inner steps, each with a pruned right sibling. */
    static byte[] nestedKeysProof(int depth) throws InterruptedException {
        // The encoder recurses too; build the hostile bytes on a roomy stack so that only decoding is under test.
        byte[][] out = new byte[1][];
        Thread t = new Thread(null, () -> out[0] = encodeNested(depth), "encoder", 256L << 20);
        t.start();
        t.join();
        return out[0];
    }

    private static byte[] encodeNested(int depth) {
        LowerProof.Part p = LowerProof.Leaf.claimed(0, 1);
        for (int i = 0; i < depth; i++) {
            p = new LowerProof.Inner(Bytes.utf8("z"), p, new LowerProof.Pruned(Hash.ZERO));
        }
        return new KeysProof(1, new KeysProof.AtDigest(Hash.ZERO), new LowerProof(0, new LowerProof.Boundary(p)))
                .encode();
    }

    /** Decodes and verifies on a fresh thread with the given stack; returns what was thrown, or null. */
    static Throwable decodeAndVerify(byte[] encoded, long stackBytes) throws InterruptedException {
        Throwable[] thrown = new Throwable[1];
        Thread t = new Thread(null, () -> {
            try {
                ProofVerifier.verifyCurrentValue(new Digest(1, Hash.ZERO), Bytes.utf8("a"), Bytes.utf8("v"),
                        KeysProof.decode(encoded));
            } catch (Throwable e) {
                thrown[0] = e;
            }
        }, "verifier", stackBytes);
        t.start();
        t.join();
        return thrown[0];
    }

    @Test
    void verify_deeplyNestedProof_failsCleanlyOnADefaultStack() throws Exception {
        List<String> errors = new ArrayList<>();
        for (int depth : new int[] {500, 1000, 2000, 3000, 4000}) {
            byte[] enc = nestedKeysProof(depth);
            for (int round = 0; round < 2; round++) {
                Throwable t = decodeAndVerify(enc, DEFAULT_STACK);
                if (!(t instanceof VerificationException || t instanceof MalformedException)) {
                    errors.add("depth " + depth + " (" + enc.length + " bytes), round " + round + ": "
                            + (t == null ? "accepted" : t + " at " + t.getStackTrace()[0]));
                }
            }
        }
        assertEquals(List.of(), errors);
    }

    @Test
    void decode_proofNestedPastAnyTreeDepth_isMalformed() throws Exception {
        // A large stack, so that the decoder's own depth check is what stops it.
        Throwable t = decodeAndVerify(nestedKeysProof(5000), 64L << 20);
        assertTrue(t instanceof MalformedException, "expected MalformedException, got " + t);
    }

    @Test
    void verify_honestlyShallowNesting_isAnOrdinaryVerificationFailure() throws Exception {
        Throwable t = decodeAndVerify(nestedKeysProof(100), DEFAULT_STACK);
        assertTrue(t instanceof VerificationException, "expected VerificationException, got " + t);
    }
}
