package io.glassledger.client;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.glassledger.api.Dto;
import io.glassledger.api.Wire;
import io.glassledger.verify.codec.MalformedException;
import io.glassledger.verify.crypto.SigningKey;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hash;
import io.glassledger.verify.proof.AppendOnlyProof;
import io.glassledger.verify.proof.Digest;
import io.glassledger.verify.proof.KeyClaim;
import io.glassledger.verify.proof.KeysProof;
import io.glassledger.verify.proof.ProofVerifier;
import io.glassledger.verify.proof.VerificationException;
import io.glassledger.verify.proof.Version;
import java.io.IOException;
import java.util.List;

/**
 * The SDK trusts no server: every answer body is untrusted bytes. Each is read with the SDK's own mapper into the
 * response records, then taken apart by the SDK's own decoding steps (the {@link Wire} helpers,
 * {@link TrustKeeper#checkHead}, {@link Txn#single}, proof decoding and verification, and the state file's
 * {@link TrustedState#fromJson}). What may come out is the SDK's documented answer to a bad server: an
 * {@link IOException} from Jackson (which {@code Api} turns into {@code bad_response}), {@link Wire.BadWireException},
 * {@link MalformedException}, {@link VerificationException}, {@link GlassLedgerException} ({@code bad_response}),
 * {@link IntegrityViolation}; and {@link IllegalStateException} for a state file. A NullPointerException or anything
 * else is a finding.
 */
class ResponseFuzzTest {
    private static final SigningKey SERVER = SigningKey.fromSeed(new byte[32]);
    private static final TrustedState TRUST = new TrustedState(SERVER.publicKey(), 0, new Digest(0, Hash.ZERO), null);
    private static final Bytes KEY = Bytes.utf8("k");

    private interface Decoder<T> {
        void decode(T body) throws VerificationException;
    }

    @FuzzTest(maxDuration = "10s")
    void decode(byte[] body) {
        read(body, Dto.KeysProofDto.class, ResponseFuzzTest::keysProof);
        read(body, Dto.HistoryResponse.class, r -> {
            Digest d = Wire.digest("digest", r.digest());
            List<Version> versions = Wire.versions("versions", r.versions());
            ProofVerifier.verifyHistory(d, Wire.requiredBytes("key", r.key()), Math.max(1, versions.size()), versions,
                    Wire.base64("proof", r.proof()));
        });
        read(body, Dto.SignedHeadDto.class, r -> TrustKeeper.checkHead(r, SERVER.publicKey(), 0, TRUST));
        read(body, Dto.AppendOnlyProofDto.class, r -> ProofVerifier.verifyAppendOnly(Wire.digest("from", r.from()),
                Wire.digest("to", r.to()), AppendOnlyProof.decode(Wire.base64("proof", r.proof()))));
        read(body, Dto.ProofBatchResponse.class, r -> {
            for (Dto.KeysProofDto p : r.proofs() == null ? List.<Dto.KeysProofDto>of() : r.proofs()) {
                if (p != null) {  // BatchChecker answers a null proof with bad_response
                    keysProof(p);
                }
            }
        });
        read(body, Dto.ValuesResponse.class, r -> Txn.single(r, KEY));
        try {
            TrustedState.fromJson(body);
        } catch (IllegalStateException expected) {
            // the documented refusal of a bad state file
        }
    }

    private static void keysProof(Dto.KeysProofDto r) throws VerificationException {
        Digest d = Wire.digest("digest", r.digest());
        List<KeyClaim> claims = Wire.claims("claims", r.claims());
        KeysProof p = KeysProof.decode(Wire.base64("proof", r.proof()));
        ProofVerifier.verifyBatch(d, p.blockNo(), claims, p);
    }

    private static <T> void read(byte[] body, Class<T> type, Decoder<T> then) {
        T value;
        try {
            value = Json.MAPPER.readValue(body, type);
        } catch (IOException expected) {
            // JsonProcessingException, or CharConversionException for bytes that are not text in the encoding
            // Jackson detects (UTF-8/16/32); both are IOExceptions, which the caller turns into its refusal.
            return;
        }
        if (value == null) {
            return;  // the JSON literal null: Api answers it with bad_response
        }
        try {
            then.decode(value);
        } catch (Wire.BadWireException | MalformedException | VerificationException | GlassLedgerException
                 | IntegrityViolation expected) {
            // the documented answers to a bad server
        }
    }
}
