package io.glassledger.verify.block;

import static io.glassledger.verify.format.FormatRule.BLOCK_RECORD_TRAILING;
import static io.glassledger.verify.format.FormatRule.BODY_VERSION_UNKNOWN;
import static io.glassledger.verify.format.FormatRule.META_COUNT_OVER_LIMIT;
import static io.glassledger.verify.format.FormatRule.META_KEYS_DUPLICATE;
import static io.glassledger.verify.format.FormatRule.META_KEYS_UNSORTED;
import static io.glassledger.verify.format.FormatRule.META_KEY_EMPTY;
import static io.glassledger.verify.format.FormatRule.META_KEY_NOT_PRINTABLE;
import static io.glassledger.verify.format.FormatRule.META_KEY_OVER_1024;
import static io.glassledger.verify.format.FormatRule.META_VALUE_OVER_1_MIB;
import static io.glassledger.verify.format.FormatRule.TIMESTAMP_OVER_2_63;
import static io.glassledger.verify.format.FormatRule.TX_COUNT_OVER_LIMIT;
import static io.glassledger.verify.format.FormatRule.TX_ID_EMPTY;
import static io.glassledger.verify.format.FormatRule.TX_ID_OVER_256;

import io.glassledger.verify.codec.ByteReader;
import io.glassledger.verify.codec.ByteWriter;
import io.glassledger.verify.codec.MalformedException;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hash;
import io.glassledger.verify.hash.Hashing;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A block: a snapshot of the state (its lower root) plus what produced it.
 *
 * <p>blockHash = H(0x10 || u64 number || lowerRoot || bodyHash), bodyHash = H(0x11 || body), where body is
 * {@code u8 1 (version), u64 timestamp (ms since epoch), varint n, n × (varint len, txId), varint m,
 * m × (varint len, key in printable ASCII, varint len, value)} with meta keys in increasing byte order. Keeping the body behind
 * its own hash lets a current-value proof carry 32 bytes for it.
 *
 * <p>Stored record: {@code lowerRoot[32] || body}.
 */
public record Block(long number, long timestamp, Hash lowerRoot, List<Bytes> txIds, SortedMap<String, Bytes> meta) {
    private static final int BODY_VERSION = 1;
    public static final int MAX_TX_ID_BYTES = 256;
    private static final int MAX_TXS = 1 << 24;
    private static final int MAX_META = 1 << 16;
    private static final int MAX_META_KEY_BYTES = 1024;
    private static final int MAX_META_VALUE_BYTES = 1 << 20;

    public Block {
        if (number < 0) {
            throw new IllegalArgumentException("block number must be non-negative");
        }
        if (timestamp < 0 && TIMESTAMP_OVER_2_63.enforced()) {
            throw new IllegalArgumentException("block timestamp must be non-negative");
        }
        txIds = List.copyOf(txIds);
        for (Bytes id : txIds) {
            if (id.length() == 0 && TX_ID_EMPTY.enforced()) {
                throw new IllegalArgumentException("empty transaction id");
            }
            if (id.length() > MAX_TX_ID_BYTES && TX_ID_OVER_256.enforced()) {
                throw new IllegalArgumentException("transaction id longer than " + MAX_TX_ID_BYTES + " bytes");
            }
        }
        for (String k : meta.keySet()) {
            if (k.isEmpty() && META_KEY_EMPTY.enforced()) {
                throw new IllegalArgumentException("empty block meta key");
            }
            if (!k.chars().allMatch(c -> c >= 0x21 && c < 0x7f) && META_KEY_NOT_PRINTABLE.enforced()) {
                throw new IllegalArgumentException("block meta keys are printable ASCII: " + k);
            }
        }
        meta = Collections.unmodifiableSortedMap(new TreeMap<>(meta));
    }

    public byte[] body() {
        ByteWriter w = new ByteWriter(64 + txIds.size() * 24);
        w.u8(BODY_VERSION).u64(timestamp).varint(txIds.size());
        for (Bytes id : txIds) {
            w.lengthPrefixed(id);
        }
        w.varint(meta.size());
        for (Map.Entry<String, Bytes> e : meta.entrySet()) {
            w.lengthPrefixed(e.getKey().getBytes(java.nio.charset.StandardCharsets.UTF_8)).lengthPrefixed(e.getValue());
        }
        return w.toByteArray();
    }

    public Hash bodyHash() {
        return Hashing.body(body());
    }

    public Hash hash() {
        return Hashing.block(number, lowerRoot, bodyHash());
    }

    public byte[] encode() {
        byte[] body = body();
        return new ByteWriter(32 + body.length).hash(lowerRoot).raw(body).toByteArray();
    }

    public static Block decode(long number, byte[] record) {
        ByteReader r = new ByteReader(record);
        Hash lower = r.hash();
        if (r.u8() != BODY_VERSION && BODY_VERSION_UNKNOWN.enforced()) {
            throw new MalformedException("unknown block body version");
        }
        long ts = r.u64();
        if (ts < 0 && TIMESTAMP_OVER_2_63.enforced()) {
            throw new MalformedException("block timestamp out of range");
        }
        int n = r.count(MAX_TXS, 2, TX_COUNT_OVER_LIMIT);
        java.util.ArrayList<Bytes> ids = new java.util.ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            ids.add(r.lengthPrefixed(MAX_TX_ID_BYTES, TX_ID_OVER_256));
        }
        int m = r.count(MAX_META, 3, META_COUNT_OVER_LIMIT);
        TreeMap<String, Bytes> meta = new TreeMap<>();
        String last = null;
        for (int i = 0; i < m; i++) {
            byte[] kb = r.lengthPrefixed(MAX_META_KEY_BYTES, META_KEY_OVER_1024).unsafeArray();
            if (kb.length == 0 && META_KEY_EMPTY.enforced()) {
                throw new MalformedException("empty block meta key");
            }
            for (byte c : kb) {
                if ((c < 0x21 || c > 0x7e) && META_KEY_NOT_PRINTABLE.enforced()) {
                    throw new MalformedException("block meta key is not printable ASCII");
                }
            }
            String k = new String(kb, java.nio.charset.StandardCharsets.US_ASCII);
            int cmp = last == null ? -1 : last.compareTo(k);
            if (cmp > 0 && META_KEYS_UNSORTED.enforced() || cmp == 0 && META_KEYS_DUPLICATE.enforced()) {
                throw new MalformedException("block meta keys not strictly increasing");
            }
            last = k;
            meta.put(k, r.lengthPrefixed(MAX_META_VALUE_BYTES, META_VALUE_OVER_1_MIB));
        }
        r.expectEnd(BLOCK_RECORD_TRAILING);
        try {
            return new Block(number, ts, lower, ids, meta);
        } catch (IllegalArgumentException e) {
            throw new MalformedException(e.getMessage());
        }
    }
}
