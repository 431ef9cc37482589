package io.glassledger.core.vectors;

import com.fasterxml.jackson.databind.JsonNode;
import io.glassledger.verify.codec.MalformedException;
import io.glassledger.verify.proof.AppendOnlyProof;
import io.glassledger.verify.proof.HistoryProof;
import io.glassledger.verify.proof.KeyClaim;
import io.glassledger.verify.proof.KeysProof;
import io.glassledger.verify.proof.ProofVerifier;
import io.glassledger.verify.proof.SignedHead;
import io.glassledger.verify.proof.VerificationException;
import io.glassledger.verify.proof.Version;
import io.glassledger.verify.txn.SignedTransaction;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs one vector input through {@link ProofVerifier}: decodes the proof and calls the entry point the file names.
 * Shared by the generator (which checks every vector before writing it) and {@link VectorTest}.
 */
final class VectorVerifier {
    private VectorVerifier() {
    }

    /**
     * Calls the {@code byte[]} entry point of {@link ProofVerifier}, which reports malformed proof bytes, like every
     * other failure, as a {@link VerificationException}.
     */
    static void verify(String verifier, JsonNode in) throws VerificationException {
        switch (verifier) {
            case "verifySignedHead" -> {
                verifySignedHead(in);
                return;
            }
            case "verifySignedTransaction" -> {
                verifySignedTransaction(in);
                return;
            }
            default -> {
            }
        }
        byte[] proof = Json.unhex(in.get("proof").asText());
        switch (verifier) {
            case "verifyCurrentValue" -> ProofVerifier.verifyCurrentValue(Json.digest(in.get("digest")),
                    Json.bytes(in.get("key")), Json.bytes(in.get("value")), proof);
            case "verifyNonExistence" -> ProofVerifier.verifyNonExistence(Json.digest(in.get("digest")),
                    Json.bytes(in.get("key")), proof);
            case "verifyInclusion" -> ProofVerifier.verifyInclusion(Json.digest(in.get("digest")),
                    in.get("blockNo").asLong(), Json.bytes(in.get("key")), Json.bytes(in.get("value")), proof);
            case "verifyBatch" -> ProofVerifier.verifyBatch(Json.digest(in.get("digest")), in.get("blockNo").asLong(),
                    claims(in.get("claims")), proof);
            case "verifyHistory" -> ProofVerifier.verifyHistory(Json.digest(in.get("digest")),
                    Json.bytes(in.get("key")), in.get("limit").asInt(), versions(in.get("versions")), proof);
            case "verifyAppendOnly" -> ProofVerifier.verifyAppendOnly(Json.digest(in.get("older")),
                    Json.digest(in.get("newer")), proof);
            default -> throw new IllegalArgumentException("unknown verifier " + verifier);
        }
    }

    /** FORMAT.md §16, through {@link SignedHead#verify()}. */
    private static void verifySignedHead(JsonNode in) throws VerificationException {
        new SignedHead(in.get("shard").asInt(), Json.digest(in.get("digest")), in.get("timestamp").asLong(),
                Json.bytes(in.get("serverKey")), Json.bytes(in.get("signature"))).verify();
    }

    /** FORMAT.md §14.2: the record decodes strictly, and its signature verifies against the client key it names. */
    private static void verifySignedTransaction(JsonNode in) throws VerificationException {
        SignedTransaction t;
        try {
            t = SignedTransaction.decode(Json.unhex(in.get("record").asText()));
        } catch (MalformedException e) {
            throw new VerificationException("malformed transaction record: " + e.getMessage());
        }
        if (!t.signatureValid()) {
            throw new VerificationException("transaction " + t.txId().hex() + " is not signed by client key "
                    + t.tx().clientKey().hex());
        }
    }

    /**
     * True if the input is rejected. Only a {@link VerificationException} counts: malformed bytes and impossible
     * claims must be reported that way too, so any other exception propagates.
     */
    static boolean rejects(String verifier, JsonNode in) {
        return rejection(verifier, in) != null;
    }

    /** The exception rejecting the input, or null if it verifies. */
    static VerificationException rejection(String verifier, JsonNode in) {
        try {
            verify(verifier, in);
            return null;
        } catch (VerificationException e) {
            return e;
        }
    }

    static List<KeyClaim> claims(JsonNode a) {
        List<KeyClaim> out = new ArrayList<>();
        for (JsonNode c : a) {
            out.add(new KeyClaim(Json.bytes(c.get("key")), Json.bytes(c.get("value"))));
        }
        return out;
    }

    static List<Version> versions(JsonNode a) {
        List<Version> out = new ArrayList<>();
        for (JsonNode v : a) {
            out.add(new Version(Json.bytes(v.get("value")), v.get("blockNo").asLong()));
        }
        return out;
    }

    /**
     * Runs {@code body} on a thread with a 64 MiB stack. LowerProof encodes, decodes and verifies recursively; the
     * vectors include proofs nested to the 512-part limit and beyond, and the generator builds deeper ones.
     */
    static <T> T onLargeStack(Callable<T> body) throws Exception {
        AtomicReference<Object> out = new AtomicReference<>();
        Thread t = new Thread(null, () -> {
            try {
                out.set(body.call());
            } catch (Throwable e) {
                out.set(new Failure(e));
            }
        }, "vectors", 64L << 20);
        t.start();
        t.join();
        if (out.get() instanceof Failure f) {
            if (f.e instanceof Exception e) {
                throw e;
            }
            throw (Error) f.e;
        }
        @SuppressWarnings("unchecked")
        T r = (T) out.get();
        return r;
    }

    private record Failure(Throwable e) {
    }
}
