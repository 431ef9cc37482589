package io.glassledger.core.vectors;

import static io.glassledger.core.vectors.NaiveEd25519.BASE;
import static io.glassledger.core.vectors.NaiveEd25519.IDENTITY;
import static io.glassledger.core.vectors.NaiveEd25519.L;
import static io.glassledger.core.vectors.NaiveEd25519.P;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.glassledger.verify.codec.ByteWriter;
import io.glassledger.verify.crypto.Ed25519;
import io.glassledger.verify.crypto.SigningKey;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hashing;
import io.glassledger.core.ledger.Ledger;
import io.glassledger.verify.entry.Mutation;
import io.glassledger.verify.proof.SignedHead;
import io.glassledger.verify.txn.SignedTransaction;
import io.glassledger.verify.txn.Transaction;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.List;

/**
 * signed-head.json (FORMAT.md §16) and signed-transaction.json (§14.2): Ed25519 signatures, valid and tampered,
 * including the RFC 8032 edge cases that a lax verifier accepts. Each edge-case signature satisfies every check but
 * the one it names (it is built with {@link NaiveEd25519} from the signer's secret scalar), so a verifier that skips
 * that one check accepts it.
 */
final class SignatureVectors {
    private static final byte[] SERVER_SEED = seed("glassledger vectors: server key");
    private static final byte[] CLIENT_SEED = seed("glassledger vectors: client key");
    private static final byte[] OTHER_SEED = seed("glassledger vectors: other key");

    private final Fixtures f;

    SignatureVectors(Fixtures f) {
        this.f = f;
    }

    /** How one signed statement is built from a public key, and what its vector input is. */
    private interface Statement {
        byte[] message(byte[] publicKey);

        ObjectNode input(byte[] publicKey, byte[] signature);
    }

    VectorFile signedHeads() {
        VectorFile file = new VectorFile("signed-head", "verifySignedHead",
                "signature is serverKey's Ed25519 signature (RFC 8032, with FORMAT.md §14.2's strict checks) over "
                        + "the §16 message of shard, digest and timestamp");
        Ledger l = f.a;
        for (long b : new long[] {0, 12}) {
            int shard = b == 0 ? 0 : 3;
            long ts = l.block(b).timestamp();
            var d = l.digest(b);
            Statement s = new Statement() {
                @Override
                public byte[] message(byte[] publicKey) {
                    return SignedHead.message(shard, d, ts);
                }

                @Override
                public ObjectNode input(byte[] publicKey, byte[] signature) {
                    ObjectNode in = Json.object();
                    in.put("shard", shard);
                    in.set("digest", Json.digest(d));
                    in.put("timestamp", ts);
                    in.put("serverKey", Json.hex(publicKey));
                    in.put("signature", Json.hex(signature));
                    return in;
                }
            };
            SigningKey key = SigningKey.fromSeed(SERVER_SEED);
            SignedHead h = SignedHead.sign(key, shard, d, ts);
            ObjectNode in = s.input(key.publicKey().toByteArray(), h.signature().toByteArray());
            VectorFile.Case c = file.add("ledger-A-block-" + b, "A", "ledger A's head at block " + b + " as shard "
                    + shard + "; message " + Json.hex(SignedHead.message(shard, d, ts)), in);
            ObjectNode o = Json.object();
            o.put("timestamp", ts + 1);
            c.invalid("message-changed", "the timestamp + 1, same signature", o);
            o = Json.object();
            o.set("digest", Json.digest(l.digest(b == 0 ? 1 : b - 1)));
            c.invalid("other-digest", "another block's digest, same signature", o);
            o = Json.object();
            o.put("shard", shard + 1);
            c.invalid("other-shard", null, o);
            o = Json.object();
            o.put("serverKey", SigningKey.fromSeed(OTHER_SEED).publicKey().hex());
            c.invalid("other-key", "another valid key, same signature", o);
            byte[] sig = h.signature().toByteArray();
            o = Json.object();
            o.put("signature", Json.hex(Tamper.truncated(sig)));
            c.invalid("signature-truncated", "the signature without its last byte: 63 bytes", o);
            o = Json.object();
            o.put("signature", Json.hex(Tamper.trailingGarbage(sig)));
            c.invalid("signature-trailing-byte", "the signature followed by 00: 65 bytes, the first 64 of them valid",
                    o);
            edgeCases(c, s, SERVER_SEED);
            if (b == 12) {
                mixedOrderCase(file, s, SERVER_SEED, "ledger-A-block-12-r-mixed-order");
            }
        }
        return file;
    }

    VectorFile signedTransactions() {
        VectorFile file = new VectorFile("signed-transaction", "verifySignedTransaction",
                "record (FORMAT.md §14.2) decodes strictly and its signature is the transaction's client key's "
                        + "Ed25519 signature (RFC 8032, strict) over \"GLTX\" ‖ signed form, the encoding with each put's "
                        + "value replaced by its hash");
        Bytes txId = Bytes.wrap(NaiveEd25519.hex("0000018bcfe5680001020304050607f0"));
        Statement s = new Statement() {
            @Override
            public byte[] message(byte[] publicKey) {
                // FORMAT.md §14.2, from the text: the put acct/002 = "100" is signed as H(03 || "100").
                Transaction t = tx(txId, publicKey);
                byte[] enc = t.encode();
                byte[] put = new ByteWriter().u8(0).lengthPrefixed(Bytes.utf8("100")).toByteArray();
                byte[] hashed = new ByteWriter().u8(0).hash(Hashing.raw(new byte[] {3, '1', '0', '0'})).toByteArray();
                int at = indexOf(enc, new ByteWriter().lengthPrefixed(Bytes.utf8("acct/002")).raw(put).toByteArray())
                        + 1 + "acct/002".length();
                byte[] signed = new ByteWriter().raw(Arrays.copyOfRange(enc, 0, at)).raw(hashed)
                        .raw(Arrays.copyOfRange(enc, at + put.length, enc.length)).toByteArray();
                return new ByteWriter().raw(new byte[] {'G', 'L', 'T', 'X'}).raw(signed).toByteArray();
            }

            @Override
            public ObjectNode input(byte[] publicKey, byte[] signature) {
                byte[] enc = tx(txId, publicKey).encode();
                ObjectNode in = Json.object();
                in.put("record", Json.hex(new ByteWriter(enc.length + 72).lengthPrefixed(enc).raw(signature)
                        .toByteArray()));
                return in;
            }
        };
        SigningKey key = SigningKey.fromSeed(CLIENT_SEED);
        SignedTransaction st = SignedTransaction.sign(tx(txId, key.publicKey().toByteArray()), key);
        ObjectNode in = Json.object();
        in.put("record", Json.hex(st.record()));
        VectorFile.Case c = file.add("two-shards-read-put-delete", "-", "shard 1 of participants [1, 4]: one read "
                + "(version 7), a put and a delete", in);
        byte[] rec = st.record();
        // The encoding ends ... 03 "100" 08 "acct/003" 01: the put's value, the delete's key and its op byte.
        int valueEnd = rec.length - Ed25519.SIGNATURE_BYTES - 1 - 8 - 1 - 1;
        if (rec[valueEnd] != '0' || rec[valueEnd - 3] != 3) {
            throw new IllegalStateException("the put's value is not where message-changed expects it");
        }
        ObjectNode o = Json.object();
        o.put("record", Json.hex(Tamper.flip(rec, valueEnd, 0)));
        c.invalidBecause("message-changed", "bit 0 of the put's last value byte flipped (100 becomes 101): still a "
                + "valid encoding, same signature", o, "is not signed by client key");
        o = Json.object();
        o.put("record", Json.hex(Arrays.copyOf(rec, rec.length - 1)));
        c.invalid("signature-truncated", "the record without its last byte", o);
        o = Json.object();
        o.put("record", Json.hex(Tamper.trailingGarbage(rec)));
        c.invalid("trailing-garbage", "the record followed by 00, after the signature: no signature covers it, so "
                + "anyone could append it", o);
        TransactionVectors.decodingMutations(c, key, txId);
        edgeCases(c, s, CLIENT_SEED);
        mixedOrderCase(file, s, CLIENT_SEED, "two-shards-read-put-delete-r-mixed-order");
        return file;
    }

    private static int indexOf(byte[] a, byte[] b) {
        for (int i = 0; i + b.length <= a.length; i++) {
            if (Arrays.equals(a, i, i + b.length, b, 0, b.length)) {
                return i;
            }
        }
        throw new IllegalStateException("not found");
    }

    private static Transaction tx(Bytes txId, byte[] clientKey) {
        return new Transaction(txId, Bytes.of(clientKey), 1, List.of(1, 4),
                List.of(new Transaction.Read(Bytes.utf8("acct/001"), 7)),
                List.of(Mutation.put(Bytes.utf8("acct/002"), Bytes.utf8("100")), Mutation.delete(Bytes.utf8("acct/003"))));
    }

    /**
     * The mutations every signature vector carries. {@code s} builds the message for a given public key (a
     * transaction's key is inside its message), so each forged signature is over exactly what is verified.
     */
    private static void edgeCases(VectorFile.Case c, Statement s, byte[] seed) {
        BigInteger[] ex = NaiveEd25519.expand(seed);
        BigInteger a = ex[0];
        NaiveEd25519.Point pubPoint = BASE.times(a);
        byte[] pub = pubPoint.encode();
        byte[] msg = s.message(pub);
        // The naive signer must agree with the real one, or its forgeries would prove nothing.
        BigInteger r = NaiveEd25519.fromLittleEndian(NaiveEd25519.sha512(
                NaiveEd25519.littleEndian(ex[1], 32), msg)).mod(L);
        byte[] rEnc = BASE.times(r).encode();
        BigInteger k = NaiveEd25519.challenge(rEnc, pub, msg);
        byte[] sig = NaiveEd25519.signature(rEnc, r.add(k.multiply(a)).mod(L));
        if (!Arrays.equals(sig, SigningKey.fromSeed(seed).sign(msg))) {
            throw new IllegalStateException("the naive Ed25519 signer disagrees with Bouncy Castle");
        }

        byte[] flipped = sig.clone();
        flipped[0] ^= 1;
        c.invalid("signature-r-bit-flipped", "bit 0 of R (signature byte 0) flipped", s.input(pub, flipped));
        flipped = sig.clone();
        flipped[32] ^= 1;
        c.invalid("signature-s-bit-flipped", "bit 0 of S (signature byte 32) flipped", s.input(pub, flipped));
        c.invalid("s-plus-l", "S + L in place of S: the same scalar mod L, so the group equation holds; only the "
                + "check S < L rejects it (RFC 8032 §5.1.7 step 1)",
                s.input(pub, NaiveEd25519.signature(rEnc, r.add(k.multiply(a)).mod(L).add(L))));

        byte[] identity = IDENTITY.encode();
        c.invalid("key-identity", "public key = the identity point (01 00…00), R = [r]B, S = r: [S]B = R + [k]A "
                + "holds for any message; only the small-order key check rejects it",
                zeroKeySignature(s, identity));
        NaiveEd25519.Point t8 = NaiveEd25519.order8();
        c.invalid("key-order-8", "public key = a point of order 8 (T), R = [r]B with r chosen so that 8 divides k, "
                + "S = r: the equation holds; only the small-order key check rejects it",
                torsionKeySignature(s, t8, BigInteger.ZERO));
        c.invalid("key-mixed-order", "public key = A + T (the signer's key plus a point of order 8), r chosen so that "
                + "8 divides k, S = r + k·a: the equation holds; only the prime-order subgroup check on the key "
                + "rejects it", torsionKeySignature(s, pubPoint.add(t8), a));
        byte[] nonCanonical = NaiveEd25519.encodeY(P.add(BigInteger.ONE), false);
        c.invalid("key-non-canonical-identity", "public key = y = p + 1 (a non-canonical encoding of the identity), "
                + "R = [r]B, S = r: only the canonical-encoding and small-order key checks reject it",
                zeroKeySignature(s, nonCanonical));
        byte[] negZero = identity.clone();
        negZero[31] |= (byte) 0x80;
        c.invalid("key-identity-sign-bit-set", "public key = the identity with the sign bit set (x = 0 cannot be "
                + "negative, RFC 8032 §5.1.3 step 4), R = [r]B, S = r",
                zeroKeySignature(s, negZero));
        byte[] offCurve = notOnCurve();
        c.invalid("key-not-on-curve", "public key = y = " + offCurve[0] + ", which has no x on the curve, with the "
                + "signature of the valid input", s.input(offCurve, sig));

        BigInteger kIdentity = NaiveEd25519.challenge(identity, pub, msg);
        c.invalid("r-identity", "R = the identity point, S = k·a: [S]B = R + [k]A holds (RFC 8032's equation "
                + "accepts it); only the small-order R check rejects it",
                s.input(pub, NaiveEd25519.signature(identity, kIdentity.multiply(a).mod(L))));
        BigInteger kNc = NaiveEd25519.challenge(nonCanonical, pub, msg);
        c.invalid("r-non-canonical-identity", "R = y = p + 1 (the identity, non-canonically), S = k·a over those R "
                + "bytes: only the canonical-encoding and small-order R checks reject it",
                s.input(pub, NaiveEd25519.signature(nonCanonical, kNc.multiply(a).mod(L))));
        for (int order : new int[] {2, 4, 8}) {
            byte[] small = t8.times(BigInteger.valueOf(8 / order)).encode();
            BigInteger ks = NaiveEd25519.challenge(small, pub, msg);
            c.invalid("r-order-" + order, "R = a point of order " + order + ", S = k·a: the cofactored equation "
                    + "[8][S]B = [8]R + [8][k]A holds; only the small-order R check rejects it",
                    s.input(pub, NaiveEd25519.signature(small, ks.multiply(a).mod(L))));
        }
    }

    /**
     * A valid input whose R has a torsion part: R = [r]B + T (T of order 8), S = r + k·a. It satisfies the cofactored
     * equation of RFC 8032 §5.1.7 that the format requires, but not the cofactorless [S]B = R + [k]A: a verifier that
     * checks only the latter rejects a valid signature.
     */
    static ObjectNode mixedOrderR(Statement s, byte[] seed) {
        BigInteger a = NaiveEd25519.expand(seed)[0];
        byte[] pub = BASE.times(a).encode();
        byte[] msg = s.message(pub);
        BigInteger r = NaiveEd25519.nonce(BigInteger.TWO, msg);
        byte[] mixedR = BASE.times(r).add(NaiveEd25519.order8()).encode();
        BigInteger k = NaiveEd25519.challenge(mixedR, pub, msg);
        return s.input(pub, NaiveEd25519.signature(mixedR, r.add(k.multiply(a)).mod(L)));
    }

    private static void mixedOrderCase(VectorFile file, Statement s, byte[] seed, String name) {
        ObjectNode in = mixedOrderR(s, seed);
        VectorFile.Case c = file.add(name, "-", "valid: R = [r]B + T with T of order 8, S = r + k·a. The cofactored "
                + "equation of RFC 8032 §5.1.7 holds, the cofactorless [S]B = R + [k]A does not: a verifier that "
                + "uses only the cofactorless one rejects this valid signature", in);
        byte[] sig = Json.unhex(signatureOf(in));
        BigInteger sc = NaiveEd25519.fromLittleEndian(Arrays.copyOfRange(sig, 32, 64));
        byte[] plusL = NaiveEd25519.signature(Arrays.copyOf(sig, 32), sc.add(L));
        byte[] key = keyOf(in);
        c.invalid("s-plus-l", "S + L in place of S", s.input(key, plusL));
    }

    private static String signatureOf(ObjectNode in) {
        if (in.has("signature")) {
            return in.get("signature").asText();
        }
        String rec = in.get("record").asText();
        return rec.substring(rec.length() - 128);
    }

    /** The public key of an input: a head's serverKey, or a transaction record's client key. */
    private static byte[] keyOf(ObjectNode in) {
        if (in.has("serverKey")) {
            return Json.unhex(in.get("serverKey").asText());
        }
        return SignedTransaction.decode(Json.unhex(in.get("record").asText())).tx().clientKey().toByteArray();
    }

    /** A signature with public key bytes {@code key} of a point whose discrete log is 0: R = [r]B, S = r. */
    private static ObjectNode zeroKeySignature(Statement s, byte[] key) {
        byte[] msg = s.message(key);
        BigInteger r = NaiveEd25519.nonce(BigInteger.ONE, msg);
        return s.input(key, NaiveEd25519.signature(BASE.times(r).encode(), r));
    }

    /**
     * A signature for the public point {@code key} = [a]B + T (T of order 8): tries nonces until 8 divides k, so
     * that [k]T vanishes and S = r + k·a satisfies the cofactorless equation.
     */
    private static ObjectNode torsionKeySignature(Statement s, NaiveEd25519.Point key, BigInteger a) {
        byte[] pub = key.encode();
        byte[] msg = s.message(pub);
        for (int tag = 1; tag < 1000; tag++) {
            BigInteger r = NaiveEd25519.nonce(BigInteger.valueOf(tag), msg);
            byte[] rEnc = BASE.times(r).encode();
            BigInteger k = NaiveEd25519.challenge(rEnc, pub, msg);
            if (k.mod(BigInteger.valueOf(8)).signum() == 0) {
                return s.input(pub, NaiveEd25519.signature(rEnc, r.add(k.multiply(a)).mod(L)));
            }
        }
        throw new IllegalStateException("no nonce with 8 | k in 1000 tries");
    }

    private static byte[] notOnCurve() {
        for (int y = 2; ; y++) {
            byte[] e = NaiveEd25519.encodeY(BigInteger.valueOf(y), false);
            if (NaiveEd25519.decode(e) == null) {
                return e;
            }
        }
    }

    static byte[] seed(String label) {
        return Arrays.copyOf(NaiveEd25519.sha512(label.getBytes(java.nio.charset.StandardCharsets.UTF_8)), 32);
    }
}
