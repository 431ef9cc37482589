package io.glassledger.verify.crypto;

import io.glassledger.verify.format.FormatRule;
import io.glassledger.verify.hash.Bytes;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Ed25519 verification (RFC 8032, strict as FORMAT.md §14.2 says: the public key must be a canonical point of
 * the prime-order subgroup, S &lt; L, R canonical and not of small order, and RFC 8032 §5.1.7's cofactored equation). Decoded public points are cached,
 * because a shard sees the same few client keys over and over and decoding one costs a field square root.
 */
public final class Ed25519 {
    public static final int PUBLIC_KEY_BYTES = 32;
    public static final int SIGNATURE_BYTES = 64;
    private static final int CACHE_LIMIT = 4096;
    /** Little-endian y of the small-order points: 1 (identity), p − 1 (order 2), 0 (order 4), the two of order 8. */
    private static final byte[][] SMALL_ORDER_Y = {
        java.util.HexFormat.of().parseHex("0100000000000000000000000000000000000000000000000000000000000000"),
        java.util.HexFormat.of().parseHex("ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"),
        java.util.HexFormat.of().parseHex("0000000000000000000000000000000000000000000000000000000000000000"),
        java.util.HexFormat.of().parseHex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a"),
        java.util.HexFormat.of().parseHex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05"),
    };
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

    /**
     * Whether {@code sig[sigOff..+64]} is {@code publicKey}'s signature of {@code msg[off..+len]}, under FORMAT.md
     * §14.2's rules: the key a canonical point of the prime-order subgroup, S below L, R not of small order, and the
     * cofactored equation (which Bouncy Castle checks, with R's canonical encoding).
     */
    public static boolean verify(Bytes publicKey, byte[] msg, int off, int len, byte[] sig, int sigOff) {
        if (sig.length - sigOff < SIGNATURE_BYTES && FormatRule.SIGNATURE_LENGTH.enforced()) {
            return false;
        }
        var p = publicKey.length() == PUBLIC_KEY_BYTES ? point(publicKey) : null;
        if (p == null) {
            if (FormatRule.SIGNATURE_KEY_INVALID.enforced()) {
                return false;
            }
            // Without the key rules: any point on the curve (the ablation test's lax verifier).
            p = org.bouncycastle.math.ec.rfc8032.Ed25519.validatePublicKeyPartialExport(publicKey.unsafeArray(), 0);
            if (p == null) {
                return false;
            }
        }
        if (isSmallOrder(sig, sigOff) && FormatRule.SIGNATURE_R_SMALL_ORDER.enforced()) {
            return false;
        }
        if (!scalarBelowL(sig, sigOff)) {
            if (FormatRule.SIGNATURE_S_NOT_BELOW_L.enforced()) {
                return false;
            }
            // Without the rule: S reduced mod L, the scalar a verifier that skips the check multiplies by.
            sig = reducedS(sig, sigOff);
            sigOff = 0;
        }
        return org.bouncycastle.math.ec.rfc8032.Ed25519.verify(sig, sigOff, p, msg, off, len)
                || !FormatRule.SIGNATURE_EQUATION.enforced();
    }

    /** L, the order of the prime-order subgroup, little-endian. */
    private static final byte[] L = java.util.HexFormat.of().parseHex(
            "edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010");

    /** Whether S, the second half of the signature (little-endian), is below L. */
    private static boolean scalarBelowL(byte[] sig, int sigOff) {
        for (int i = PUBLIC_KEY_BYTES - 1; i >= 0; i--) {
            int s = sig[sigOff + PUBLIC_KEY_BYTES + i] & 0xff;
            int l = L[i] & 0xff;
            if (s != l) {
                return s < l;
            }
        }
        return false;
    }

    /** The signature with S replaced by S mod L. */
    private static byte[] reducedS(byte[] sig, int sigOff) {
        byte[] out = java.util.Arrays.copyOfRange(sig, sigOff, sigOff + SIGNATURE_BYTES);
        java.math.BigInteger s = littleEndian(out, PUBLIC_KEY_BYTES).mod(littleEndian(L, 0));
        byte[] be = s.toByteArray();
        java.util.Arrays.fill(out, PUBLIC_KEY_BYTES, SIGNATURE_BYTES, (byte) 0);
        for (int i = 0; i < be.length && i < PUBLIC_KEY_BYTES; i++) {
            out[PUBLIC_KEY_BYTES + i] = be[be.length - 1 - i];
        }
        return out;
    }

    private static java.math.BigInteger littleEndian(byte[] a, int from) {
        byte[] be = new byte[PUBLIC_KEY_BYTES];
        for (int i = 0; i < PUBLIC_KEY_BYTES; i++) {
            be[i] = a[from + PUBLIC_KEY_BYTES - 1 - i];
        }
        return new java.math.BigInteger(1, be);
    }

    /**
     * Whether R, the first half of the signature, encodes a point of small order: its y (the sign bit masked) is one
     * of the five y coordinates of the eight points of order 1, 2, 4 or 8. With S = k·a such an R satisfies RFC 8032
     * §5.1.7's cofactored equation, which Bouncy Castle checks; it is a signature only the key's owner can make, but
     * one that cofactorless verifiers reject, so FORMAT.md §14.2 forbids it. (Bouncy Castle already rejects a
     * non-canonical R, y ≥ p, and x = 0 with the sign bit set.)
     */
    private static boolean isSmallOrder(byte[] sig, int sigOff) {
        byte[] y = java.util.Arrays.copyOfRange(sig, sigOff, sigOff + PUBLIC_KEY_BYTES);
        y[PUBLIC_KEY_BYTES - 1] &= 0x7f;
        for (byte[] small : SMALL_ORDER_Y) {
            if (java.util.Arrays.equals(y, small)) {
                return true;
            }
        }
        return false;
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
