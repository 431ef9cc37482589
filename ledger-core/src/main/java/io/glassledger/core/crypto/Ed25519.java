package io.glassledger.core.crypto;

import io.glassledger.core.hash.Bytes;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Ed25519 verification (RFC 8032, strict: the public key must be a valid point). Decoded public points are cached,
 * because a shard sees the same few client keys over and over and decoding one costs a field square root.
 */
public final class Ed25519 {
    public static final int PUBLIC_KEY_BYTES = 32;
    public static final int SIGNATURE_BYTES = 64;
    private static final int CACHE_LIMIT = 4096;
    private static final ConcurrentHashMap<Bytes, org.bouncycastle.math.ec.rfc8032.Ed25519.PublicPoint> POINTS =
            new ConcurrentHashMap<>();

    static {
        org.bouncycastle.math.ec.rfc8032.Ed25519.precompute();
    }

    private Ed25519() {
    }

    /** True if {@code publicKey} encodes a valid curve point of the prime-order subgroup. */
    public static boolean isValidPublicKey(Bytes publicKey) {
        return publicKey.length() == PUBLIC_KEY_BYTES && point(publicKey) != null;
    }

    public static boolean verify(Bytes publicKey, byte[] msg, int off, int len, byte[] sig, int sigOff) {
        if (publicKey.length() != PUBLIC_KEY_BYTES || sig.length - sigOff < SIGNATURE_BYTES) {
            return false;
        }
        var p = point(publicKey);
        return p != null && org.bouncycastle.math.ec.rfc8032.Ed25519.verify(sig, sigOff, p, msg, off, len);
    }

    private static org.bouncycastle.math.ec.rfc8032.Ed25519.PublicPoint point(Bytes publicKey) {
        var p = POINTS.get(publicKey);
        if (p == null) {
            p = org.bouncycastle.math.ec.rfc8032.Ed25519.validatePublicKeyFullExport(publicKey.unsafeArray(), 0);
            if (p == null) {
                return null;
            }
            if (POINTS.size() >= CACHE_LIMIT) {
                POINTS.clear();
            }
            POINTS.put(publicKey, p);
        }
        return p;
    }
}
