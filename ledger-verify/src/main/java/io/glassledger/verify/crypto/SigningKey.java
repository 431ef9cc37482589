package io.glassledger.verify.crypto;

import io.glassledger.verify.hash.Bytes;
import java.security.SecureRandom;

/**
 * An Ed25519 private key (the 32-byte RFC 8032 seed) with its public key. toString never shows the seed.
 *
 * <p>The public key is derived on first use, not when the key is made: deriving it is the first use of Bouncy
 * Castle's base-point tables in a JVM, about 0.4 s of CPU, which a short-lived client ({@code ledger-cli}) computes on
 * a thread of its own ({@link Ed25519#precompute()}) while it reads its key file and makes its first request.
 */
public final class SigningKey {
    private static final SecureRandom RANDOM = new SecureRandom();
    private final byte[] seed;
    /** Null until derived; always the same bytes once derived, so a race derives it twice, harmlessly. */
    private volatile byte[] publicKey;

    private SigningKey(byte[] seed) {
        this.seed = seed.clone();
    }

    private byte[] derivedPublicKey() {
        byte[] p = publicKey;
        if (p == null) {
            p = new byte[Ed25519.PUBLIC_KEY_BYTES];
            org.bouncycastle.math.ec.rfc8032.Ed25519.generatePublicKey(seed, 0, p, 0);
            publicKey = p;
        }
        return p;
    }

    public static SigningKey generate() {
        byte[] s = new byte[32];
        org.bouncycastle.math.ec.rfc8032.Ed25519.generatePrivateKey(RANDOM, s);
        return new SigningKey(s);
    }

    public static SigningKey fromSeed(byte[] seed) {
        if (seed.length != 32) {
            throw new IllegalArgumentException("an Ed25519 seed is 32 bytes");
        }
        return new SigningKey(seed);
    }

    public byte[] seed() {
        return seed.clone();
    }

    public Bytes publicKey() {
        return Bytes.of(derivedPublicKey());
    }

    public byte[] sign(byte[] msg, int off, int len) {
        byte[] sig = new byte[Ed25519.SIGNATURE_BYTES];
        org.bouncycastle.math.ec.rfc8032.Ed25519.sign(seed, 0, derivedPublicKey(), 0, msg, off, len, sig, 0);
        return sig;
    }

    public byte[] sign(byte[] msg) {
        return sign(msg, 0, msg.length);
    }

    @Override
    public String toString() {
        return "SigningKey[public=" + Bytes.of(derivedPublicKey()).hex() + "]";
    }
}
