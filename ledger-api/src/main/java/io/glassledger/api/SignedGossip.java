package io.glassledger.api;

import io.glassledger.verify.codec.ByteWriter;
import io.glassledger.verify.crypto.Ed25519;
import io.glassledger.verify.crypto.SigningKey;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.proof.SignedHead;
import io.glassledger.verify.proof.VerificationException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * GlassDB's gossip between auditors, signed by the sending auditor's Ed25519 key, so that a receiver accepts only
 * its configured peers and a fork found through gossip names, verifiably, the auditor that reported the other head.
 * The signature is over
 * <pre>
 *   "GLGOSSIP1" ‖ varint len ‖ from (UTF-8) ‖ key (32) ‖ u64 sentAt (ms since the epoch) ‖ u32 n ‖
 *   n × ( u32 shard ‖ u64 block ‖ root (32) ‖ u64 timestamp ‖ serverKey (32) ‖ signature (64) )
 * </pre>
 * with every head as decoded from the message (so two JSON spellings of one message sign the same bytes).
 */
public final class SignedGossip {
    private static final byte[] DOMAIN = "GLGOSSIP1".getBytes(StandardCharsets.US_ASCII);
    /** Longest sender name accepted. */
    public static final int MAX_FROM_CHARS = 256;

    /**
     * The body of {@code POST /v1/gossip} and of its answer. {@code key} and {@code signature} are hex. Every field
     * is nullable on the wire, so that an unsigned message (the old shape: {@code from} and {@code heads} only) is
     * read and refused as unsigned, not as unreadable.
     */
    public record Message(String from, String key, Long sentAt, List<Dto.SignedHeadDto> heads, String signature) {
    }

    private SignedGossip() {
    }

    /** A message from {@code key} with {@code heads}, signed now. */
    public static Message sign(SigningKey key, String from, long sentAt, List<SignedHead> heads) {
        byte[] msg = encode(from, key.publicKey(), sentAt, heads);
        return new Message(from, key.publicKey().hex(), sentAt, heads.stream().map(Wire::signedHead).toList(),
                Bytes.wrap(key.sign(msg)).hex());
    }

    /**
     * Decodes {@code m} and checks its signature under {@code m.key()}; returns the heads (not verified: each is the
     * shard's signature, which the receiver checks under the shard's pinned key).
     *
     * @throws Wire.BadWireException  a field missing or malformed
     * @throws VerificationException the signature is not the key's over this message
     */
    public static List<SignedHead> verify(Message m) throws VerificationException {
        if (m == null) {
            throw new Wire.BadWireException("gossip", "missing");
        }
        if (m.from() == null || m.from().length() > MAX_FROM_CHARS) {
            throw new Wire.BadWireException("from", "missing or over " + MAX_FROM_CHARS + " characters");
        }
        if (m.sentAt() == null) {
            throw new Wire.BadWireException("sentAt", "missing");
        }
        Bytes key = Wire.hex("key", m.key(), Ed25519.PUBLIC_KEY_BYTES);
        Bytes sig = Wire.hex("signature", m.signature(), Ed25519.SIGNATURE_BYTES);
        List<SignedHead> heads = new ArrayList<>();
        for (Dto.SignedHeadDto d : m.heads() == null ? List.<Dto.SignedHeadDto>of() : m.heads()) {
            heads.add(Wire.signedHead("heads", d));
        }
        byte[] msg = encode(m.from(), key, m.sentAt(), heads);
        if (!Ed25519.verify(key, msg, 0, msg.length, sig.unsafeArray(), 0)) {
            throw new VerificationException("the gossip from " + m.from() + " is not signed by key " + key.hex());
        }
        return heads;
    }

    static byte[] encode(String from, Bytes key, long sentAt, List<SignedHead> heads) {
        ByteWriter w = new ByteWriter(64 + heads.size() * 180).raw(DOMAIN)
                .lengthPrefixed(from.getBytes(StandardCharsets.UTF_8)).raw(key.toByteArray()).u64(sentAt)
                .u32(heads.size());
        for (SignedHead h : heads) {
            w.u32(h.shard()).u64(h.digest().blockNo()).hash(h.digest().root()).u64(h.timestamp())
                    .raw(h.serverKey().toByteArray()).raw(h.signature().toByteArray());
        }
        return w.toByteArray();
    }
}
