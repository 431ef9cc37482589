package io.glassledger.verify.crypto;

import io.glassledger.verify.hash.Bytes;
import java.security.SecureRandom;

/** An Ed25519 private key (the 32-byte RFC 8032 seed) with its public key. toString never shows the seed. */
public final class SigningKey {
    private static final SecureRandom RANDOM = new SecureRandom();
    private final byte[] seed;
    private final byte[] publicKey;

    private SigningKey(byte[] seed) {
        this.seed = seed.clone();
        this.publicKey = new byte[Ed25519.PUBLIC_KEY_BYTES];
        org.bouncycastle.math.ec.rfc8032.Ed25519.generatePublicKey(this.seed, 0, publicKey, 0);
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
        return Bytes.of(publicKey);
    }

    public byte[] sign(byte[] msg, int off, int len) {
        byte[] sig = new byte[Ed25519.SIGNATURE_BYTES];
        org.bouncycastle.math.ec.rfc8032.Ed25519.sign(seed, 0, publicKey, 0, msg, off, len, sig, 0);
        return sig;
    }

    public byte[] sign(byte[] msg) {
        return sign(msg, 0, msg.length);
    }

    @Override
    public String toString() {
        return "SigningKey[public=" + Bytes.of(publicKey).hex() + "]";
    }
}
