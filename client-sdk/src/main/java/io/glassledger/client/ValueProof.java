package io.glassledger.client;

import io.glassledger.api.Dto;
import io.glassledger.api.Wire;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.proof.Digest;
import io.glassledger.verify.proof.KeyClaim;
import io.glassledger.verify.proof.ProofVerifier;
import io.glassledger.verify.proof.SignedHead;
import io.glassledger.verify.proof.VerificationException;
import java.io.IOException;
import java.util.List;
import java.util.Objects;

/**
 * A key's value (or absence) in the state of one block, with everything needed to check it with no server: the
 * claims the keys proof covers, the proof, the digest it leads to, the server's signed head, and, when the head is
 * newer than the digest, the append-only proof between them. What {@code ledger-cli prove} saves and
 * {@code ledger-cli verify} checks.
 *
 * <p>File form (JSON, UTF-8; bytes base64, hashes and keys hex, as in docs/API.md):
 * <pre>{@code
 * {
 *   "format": "glassledger-proof/1",
 *   "shard": 0,
 *   "key": "<base64>",
 *   "value": "<base64>" or null (absent),
 *   "block": 41,                                   the state the claim is about
 *   "claims": [{"key": "<base64>", "value": ...}], every claim the proof covers: the key's, perhaps others
 *   "digest": {"block": 42, "hash": "<hex>"},      what the keys proof leads to
 *   "proof": "<base64>",                           keys proof, FORMAT.md §10
 *   "signedHead": {"shard", "block", "hash", "timestamp", "serverKey", "signature"},
 *   "appendOnly": "<base64>" or null,              FORMAT.md §11, from digest to the head's digest if they differ
 *   "trusted": {"digest": {...}, "appendOnly": "<base64>"} or null
 *                                                  the digest the prover trusted before, older than digest, and
 *                                                  the append-only proof from it to digest
 * }
 * }</pre>
 * docs/FORMAT.md §16.1 describes the file and how it is checked.
 */
public record ValueProof(int shard, Bytes key, Bytes value, long block, List<KeyClaim> claims, Digest digest,
                         Bytes proof, SignedHead signedHead, Bytes appendOnly, Trusted trusted) {
    public static final String FORMAT = "glassledger-proof/1";

    /**
     * A digest the prover trusted before it checked this proof (the CLI's trusted digest), older than the proof's
     * digest, with the append-only proof (FORMAT.md §11) from it to the proof's digest: whoever holds that older
     * digest can check that the proof extends it.
     */
    public record Trusted(Digest digest, Bytes appendOnly) {
        public Trusted {
            Objects.requireNonNull(digest, "digest");
            Objects.requireNonNull(appendOnly, "appendOnly");
        }
    }

    record File(String format, int shard, String key, String value, long block, List<Dto.ClaimDto> claims,
                Dto.DigestDto digest, String proof, Dto.SignedHeadDto signedHead, String appendOnly,
                TrustedFile trusted) {
    }

    record TrustedFile(Dto.DigestDto digest, String appendOnly) {
    }

    public ValueProof {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(digest, "digest");
        Objects.requireNonNull(proof, "proof");
        claims = List.copyOf(claims);
    }

    /** A file without a trusted part. */
    public ValueProof(int shard, Bytes key, Bytes value, long block, List<KeyClaim> claims, Digest digest,
                      Bytes proof, SignedHead signedHead, Bytes appendOnly) {
        this(shard, key, value, block, claims, digest, proof, signedHead, appendOnly, null);
    }

    ValueProof withHead(SignedHead head, Bytes appendOnlyProof) {
        return new ValueProof(shard, key, value, block, claims, digest, proof, head, appendOnlyProof, trusted);
    }

    ValueProof withTrusted(Trusted t) {
        return new ValueProof(shard, key, value, block, claims, digest, proof, signedHead, appendOnly, t);
    }

    /**
     * Checks the file on its own: the signed head's signature (by {@code serverKey} if given, else by the key it
     * names), that the head is of this shard and signs {@code digest} or a later digest that extends it, that the
     * keys proof leads to {@code digest} for all its claims in the state of {@code block}, and that among them the
     * key has {@code value}, and, if the file has a trusted part, that its digest is older than {@code digest} and
     * its append-only proof links the two. With {@code expected}, the digest, the head's digest or the trusted
     * part's digest must also be that one.
     */
    public void verify(Bytes serverKey, Digest expected) throws VerificationException {
        if (signedHead == null) {
            throw new VerificationException("no signed head");
        }
        if (serverKey == null) {
            signedHead.verify();
        } else {
            signedHead.verify(serverKey);
        }
        if (signedHead.shard() != shard) {
            throw new VerificationException("signed head is of shard " + signedHead.shard() + ", proof of " + shard);
        }
        Digest signed = signedHead.digest();
        if (!signed.equals(digest)) {
            if (appendOnly == null) {
                throw new VerificationException("the signed head names " + signed + ", the proof leads to " + digest
                        + ", and no append-only proof links them");
            }
            ProofVerifier.verifyAppendOnly(digest, signed, appendOnly.toByteArray());
        } else if (appendOnly != null) {
            throw new VerificationException("an append-only proof between equal digests");
        }
        if (trusted != null) {
            if (trusted.digest().blockNo() >= digest.blockNo()) {
                throw new VerificationException("the trusted part's digest " + trusted.digest()
                        + " is not older than the proof's digest " + digest);
            }
            ProofVerifier.verifyAppendOnly(trusted.digest(), digest, trusted.appendOnly().toByteArray());
        }
        KeyClaim mine = null;
        for (KeyClaim c : claims) {
            if (c.key().equals(key)) {
                mine = c;
            }
        }
        if (mine == null || !Objects.equals(mine.value(), value)) {
            throw new VerificationException("the claims do not give key " + key + " the value stated");
        }
        ProofVerifier.verifyBatch(digest, block, claims, proof.toByteArray());
        if (expected != null && !expected.equals(digest) && !expected.equals(signed)
                && (trusted == null || !expected.equals(trusted.digest()))) {
            throw new VerificationException("the proof leads to " + digest + " (signed head: " + signed
                    + (trusted == null ? "" : ", trusted before: " + trusted.digest()) + "), not to the expected "
                    + expected);
        }
    }

    public byte[] toJson() {
        try {
            return Json.FILES.writeValueAsBytes(new File(FORMAT, shard, Wire.b64(key), Wire.b64(value), block,
                    Wire.claims(claims), Wire.digest(digest), Wire.b64(proof),
                    signedHead == null ? null : Wire.signedHead(signedHead), Wire.b64(appendOnly),
                    trusted == null ? null : new TrustedFile(Wire.digest(trusted.digest()),
                            Wire.b64(trusted.appendOnly()))));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** @throws IllegalArgumentException if the file is not a proof file (not JSON, wrong format, bad fields) */
    public static ValueProof fromJson(byte[] json) {
        File f;
        try {
            f = Json.FILES.readValue(json, File.class);
        } catch (IOException e) {
            throw new IllegalArgumentException("not a proof file: " + e.getMessage(), e);
        }
        if (f == null || !FORMAT.equals(f.format())) {
            throw new IllegalArgumentException("not a proof file: format is " + (f == null ? null : f.format())
                    + ", expected " + FORMAT);
        }
        if (f.block() < 0 || f.shard() < 0) {
            throw new IllegalArgumentException("negative block or shard");
        }
        return new ValueProof(f.shard(), Wire.requiredBytes("key", f.key()), Wire.bytes("value", f.value()),
                f.block(), Wire.claims("claims", f.claims()), Wire.digest("digest", f.digest()),
                Wire.requiredBytes("proof", f.proof()),
                f.signedHead() == null ? null : Wire.signedHead("signedHead", f.signedHead()),
                Wire.bytes("appendOnly", f.appendOnly()),
                f.trusted() == null ? null : new Trusted(Wire.digest("trusted.digest", f.trusted().digest()),
                        Wire.requiredBytes("trusted.appendOnly", f.trusted().appendOnly())));
    }
}
