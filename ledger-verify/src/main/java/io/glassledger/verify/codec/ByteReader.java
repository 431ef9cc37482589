package io.glassledger.verify.codec;

import io.glassledger.verify.format.FormatRule;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hash;

/**
 * A strict reader: every read is bounds-checked before use, varints must be minimal, and
 * {@link #expectEnd()} rejects trailing bytes, so that one value has exactly one encoding. The overloads that take a
 * {@link FormatRule} enforce a limit or the end of a structure under that rule's name (docs/FORMAT.md); the others
 * serve encodings that FORMAT.md does not pin down for third parties (the WAL, the replicated logs).
 */
public final class ByteReader {
    private final byte[] buf;
    private int pos;
    private final int end;

    public ByteReader(byte[] buf) {
        this(buf, 0, buf.length);
    }

    public ByteReader(byte[] buf, int from, int to) {
        this.buf = buf;
        this.pos = from;
        this.end = to;
    }

    public int position() {
        return pos;
    }

    public int remaining() {
        return end - pos;
    }

    public byte[] array() {
        return buf;
    }

    private void need(long n) {
        if ((n < 0 || n > end - pos) && FormatRule.TRUNCATED.enforced()) {
            throw new MalformedException("truncated: need " + n + " bytes at offset " + pos + ", have " + (end - pos));
        }
    }

    public int u8() {
        need(1);
        return buf[pos++] & 0xff;
    }

    public long u64() {
        need(8);
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (buf[pos++] & 0xff);
        }
        return v;
    }

    public long varint() {
        long v = 0;
        for (int shift = 0; shift < 63; shift += 7) {
            int b = u8();
            v |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                if (b == 0 && shift > 0 && FormatRule.VARINT_NOT_MINIMAL.enforced()) {
                    throw new MalformedException("non-minimal varint at offset " + (pos - 1));
                }
                return v;
            }
        }
        if (FormatRule.VARINT_TOO_LONG.enforced()) {
            throw new MalformedException("varint too long at offset " + pos);
        }
        return v;
    }

    /** A varint that must be at most {@code max}. */
    public int varint(int max) {
        return varint(max, null);
    }

    /** A varint that must be at most {@code max}, a limit that {@code limit} names (null: none). */
    public int varint(int max, FormatRule limit) {
        long v = varint();
        if (v > max && (limit == null || limit.enforced())) {
            throw new MalformedException("value " + v + " exceeds limit " + max + " at offset " + pos);
        }
        return (int) v;
    }

    /**
     * A count of items that follow, each at least {@code minItemBytes} long: at most {@code max}, and refused before
     * anything is allocated when the bytes left cannot hold that many items. Decoders size their collections by the
     * value returned, so an allocation is bounded by the input's length, never by a declared count alone.
     */
    public int count(int max, int minItemBytes) {
        return count(max, minItemBytes, null);
    }

    /** {@link #count(int, int)} with the limit {@code max} named by {@code limit} (null: none). */
    public int count(int max, int minItemBytes, FormatRule limit) {
        int at = pos;
        int n = varint(max, limit);
        if ((long) n * minItemBytes > end - pos && FormatRule.COUNT_EXCEEDS_INPUT.enforced()) {
            throw new MalformedException("count " + n + " at offset " + at + " needs at least " + (long) n * minItemBytes
                    + " bytes, " + (end - pos) + " remain");
        }
        return n;
    }

    public Hash hash() {
        need(Hash.LENGTH);
        Hash h = Hash.of(buf, pos);
        pos += Hash.LENGTH;
        return h;
    }

    public Bytes bytes(int n) {
        need(n);
        Bytes b = Bytes.of(buf, pos, pos + n);
        pos += n;
        return b;
    }

    public Bytes lengthPrefixed(int maxLength) {
        return bytes(varint(maxLength));
    }

    /** A length-prefixed byte string of at most {@code maxLength} bytes, a limit that {@code limit} names. */
    public Bytes lengthPrefixed(int maxLength, FormatRule limit) {
        return bytes(varint(maxLength, limit));
    }

    public void skip(int n) {
        need(n);
        pos += n;
    }

    public void expectEnd() {
        expectEnd(null);
    }

    /** The end of a structure whose trailing bytes {@code trailing} rejects (null: no rule names it). */
    public void expectEnd(FormatRule trailing) {
        if (pos != end && (trailing == null || trailing.enforced())) {
            throw new MalformedException((end - pos) + " trailing bytes at offset " + pos);
        }
    }
}
