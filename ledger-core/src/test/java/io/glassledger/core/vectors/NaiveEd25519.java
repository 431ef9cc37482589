package io.glassledger.core.vectors;

import java.math.BigInteger;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * A deliberately naive Ed25519 (RFC 8032 §5.1) over affine coordinates and {@link BigInteger}, written for the
 * signature vectors only: it signs with any scalar and any public point, including the small-order and
 * mixed-order points a real signer never produces, so that the vectors can hold signatures that a lax verifier
 * (one that skips a single check of FORMAT.md §14.2) would accept. Slow and not constant-time: never for real keys.
 */
final class NaiveEd25519 {
    static final BigInteger P = BigInteger.TWO.pow(255).subtract(BigInteger.valueOf(19));
    /** The order of the prime-order subgroup. */
    static final BigInteger L = BigInteger.TWO.pow(252).add(new BigInteger("27742317777372353535851937790883648493"));
    private static final BigInteger D = BigInteger.valueOf(-121665).mod(P)
            .multiply(BigInteger.valueOf(121666).modInverse(P)).mod(P);
    private static final BigInteger SQRT_M1 = BigInteger.TWO.modPow(P.subtract(BigInteger.ONE).shiftRight(2), P);
    static final Point IDENTITY = new Point(BigInteger.ZERO, BigInteger.ONE);
    static final Point BASE = decode(hex("5866666666666666666666666666666666666666666666666666666666666666"));

    private NaiveEd25519() {
    }

    record Point(BigInteger x, BigInteger y) {
        Point add(Point o) {
            BigInteger t = D.multiply(x).multiply(o.x).multiply(y).multiply(o.y).mod(P);
            BigInteger x3 = x.multiply(o.y).add(y.multiply(o.x)).multiply(BigInteger.ONE.add(t).modInverse(P)).mod(P);
            BigInteger y3 = y.multiply(o.y).add(x.multiply(o.x)).multiply(BigInteger.ONE.subtract(t).mod(P)
                    .modInverse(P)).mod(P);
            return new Point(x3, y3);
        }

        Point negate() {
            return new Point(x.negate().mod(P), y);
        }

        Point times(BigInteger k) {
            Point r = IDENTITY;
            for (int i = k.bitLength() - 1; i >= 0; i--) {
                r = r.add(r);
                if (k.testBit(i)) {
                    r = r.add(this);
                }
            }
            return r;
        }

        /** RFC 8032 §5.1.2: y little-endian, the sign of x in the top bit. */
        byte[] encode() {
            return encodeY(y, x.testBit(0));
        }
    }

    /** The 32-byte encoding of {@code y} (taken as is, so y ≥ p gives a non-canonical encoding) and sign bit. */
    static byte[] encodeY(BigInteger y, boolean sign) {
        byte[] out = littleEndian(y, 32);
        if (sign) {
            out[31] |= (byte) 0x80;
        }
        return out;
    }

    /** RFC 8032 §5.1.3, strict: null for y ≥ p, no square root, or x = 0 with the sign bit set. */
    static Point decode(byte[] e) {
        byte[] c = e.clone();
        boolean sign = (c[31] & 0x80) != 0;
        c[31] &= 0x7f;
        BigInteger y = fromLittleEndian(c);
        if (y.compareTo(P) >= 0) {
            return null;
        }
        BigInteger yy = y.multiply(y).mod(P);
        BigInteger u = yy.subtract(BigInteger.ONE).mod(P);
        BigInteger v = D.multiply(yy).add(BigInteger.ONE).mod(P);
        BigInteger x = u.multiply(v.modInverse(P)).modPow(P.add(BigInteger.valueOf(3)).shiftRight(3), P);
        BigInteger vxx = v.multiply(x).multiply(x).mod(P);
        if (!vxx.equals(u)) {
            if (!vxx.equals(u.negate().mod(P))) {
                return null;
            }
            x = x.multiply(SQRT_M1).mod(P);
        }
        if (x.signum() == 0 && sign) {
            return null;
        }
        if (x.testBit(0) != sign) {
            x = P.subtract(x);
        }
        return new Point(x, y);
    }

    /** A point of order 8, found as [L]Q for the first Q (by y = 2, 3, ...) whose torsion part has order 8. */
    static Point order8() {
        for (int y = 2; y < 1000; y++) {
            Point q = decode(encodeY(BigInteger.valueOf(y), false));
            if (q == null) {
                continue;
            }
            Point t = q.times(L);
            if (!t.times(BigInteger.valueOf(4)).equals(IDENTITY)) {
                return t;
            }
        }
        throw new IllegalStateException("no point of order 8 found");
    }

    /** The secret scalar a and the nonce prefix of an RFC 8032 seed (§5.1.5). */
    static BigInteger[] expand(byte[] seed) {
        byte[] h = sha512(seed);
        byte[] a = java.util.Arrays.copyOf(h, 32);
        a[0] &= (byte) 248;
        a[31] &= 127;
        a[31] |= 64;
        return new BigInteger[] {fromLittleEndian(a), fromLittleEndian(java.util.Arrays.copyOfRange(h, 32, 64))};
    }

    /** k = SHA-512(R ‖ A ‖ M) mod L. */
    static BigInteger challenge(byte[] r, byte[] a, byte[] msg) {
        return fromLittleEndian(sha512(r, a, msg)).mod(L);
    }

    /** A nonce scalar derived from {@code tag} and the message (deterministic, like §5.1.6's r). */
    static BigInteger nonce(BigInteger tag, byte[] msg) {
        return fromLittleEndian(sha512(littleEndian(tag, 32), msg)).mod(L);
    }

    /** R ‖ S as 64 bytes; S is written as given (it may be ≥ L). */
    static byte[] signature(byte[] r, BigInteger s) {
        byte[] out = new byte[64];
        System.arraycopy(r, 0, out, 0, 32);
        System.arraycopy(littleEndian(s, 32), 0, out, 32, 32);
        return out;
    }

    static byte[] littleEndian(BigInteger v, int n) {
        byte[] be = v.toByteArray();
        byte[] out = new byte[n];
        for (int i = 0; i < be.length && i < n; i++) {
            out[i] = be[be.length - 1 - i];
        }
        return out;
    }

    static BigInteger fromLittleEndian(byte[] le) {
        byte[] be = new byte[le.length + 1];
        for (int i = 0; i < le.length; i++) {
            be[le.length - i] = le[i];
        }
        return new BigInteger(be);
    }

    static byte[] sha512(byte[]... parts) {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-512");
            for (byte[] p : parts) {
                md.update(p);
            }
            return md.digest();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    static byte[] hex(String s) {
        return java.util.HexFormat.of().parseHex(s);
    }
}
