package io.glassledger.core.state;

import io.glassledger.core.postree.TreeParams;
import io.glassledger.core.store.ValueLocator;
import io.glassledger.verify.codec.ByteReader;
import io.glassledger.verify.codec.ByteWriter;
import io.glassledger.verify.entry.Separators;
import io.glassledger.verify.hash.Hash;
import io.glassledger.verify.hash.Hashing;
import java.util.ArrayList;
import java.util.List;

/**
 * A leaf's record in the leaf log, its node hash and where leaves end.
 *
 * <p>Record (storage only, FORMAT.md §19.3's leaf bytes): {@code varint n ‖ n × (lp(key) ‖ u8 kind ‖ [valueHash[32]
 * ‖ varint segment ‖ varint offset ‖ varint length] ‖ varint version)}, kind 0 a tombstone (nothing follows it but
 * the version), kind 1 a value.
 */
final class StateLeaf {
    private StateLeaf() {
    }

    static byte[] encode(List<StateEntry> entries) {
        ByteWriter w = new ByteWriter(64 * entries.size() + 4);
        w.varint(entries.size());
        for (StateEntry e : entries) {
            w.lengthPrefixed(e.key());
            if (e.isTombstone()) {
                w.u8(0);
            } else {
                w.u8(1).hash(e.valueHash()).varint(e.at().segment()).varint(e.at().offset()).varint(e.at().length());
            }
            w.varint(e.version());
        }
        return w.toByteArray();
    }

    static List<StateEntry> decode(byte[] record) {
        ByteReader r = new ByteReader(record);
        int n = r.count(1 << 20, 4);
        List<StateEntry> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            var key = r.lengthPrefixed(io.glassledger.verify.entry.Entry.MAX_KEY_BYTES);
            int kind = r.u8();
            Hash vh = null;
            ValueLocator at = null;
            if (kind == 1) {
                vh = r.hash();
                at = new ValueLocator(r.varint(), (int) r.varint(), (int) r.varint());
            } else if (kind != 0) {
                throw new IllegalStateException("leaf record: entry kind " + kind);
            }
            out.add(new StateEntry(key, vh, at, r.varint()));
        }
        r.expectEnd();
        return out;
    }

    /** FORMAT.md §4.3: {@code H(02 ‖ 00 ‖ R(0, n))}, a leaf's routing tree split by item count. */
    static Hash hash(List<StateEntry> entries) {
        Hash[] items = new Hash[entries.size()];
        for (int i = 0; i < items.length; i++) {
            items[i] = entries.get(i).hash();
        }
        return Hashing.node(0, routing(entries, items, 0, items.length));
    }

    private static Hash routing(List<StateEntry> entries, Hash[] items, int lo, int hi) {
        if (hi - lo == 1) {
            return items[lo];
        }
        int m = lo + (hi - lo + 1) / 2;
        byte[] sep = Separators.shortest(entries.get(m - 1).key(), entries.get(m).key()).unsafeArray();
        return Hashing.inner(sep, routing(entries, items, lo, m), routing(entries, items, m, hi));
    }

    /**
     * Cuts entries in key order into leaves by FORMAT.md §5.3, from a leaf boundary on. The last piece may be open
     * (it ends with no cut, {@link #closed} says): the caller carries it into the next leaf, or closes it at the end of
     * the level.
     */
    static List<List<StateEntry>> cut(TreeParams params, List<StateEntry> entries) {
        List<List<StateEntry>> out = new ArrayList<>();
        List<StateEntry> cur = new ArrayList<>();
        for (StateEntry e : entries) {
            cur.add(e);
            byte[] k = e.key().unsafeArray();
            if (params.endsLeaf(k, 0, k.length) || cur.size() >= params.leafMaxKeys()) {
                out.add(cur);
                cur = new ArrayList<>();
            }
        }
        if (!cur.isEmpty()) {
            out.add(cur);
        }
        return out;
    }

    /** Whether a leaf of these entries (from a boundary on) ends on a boundary of its own. */
    static boolean closed(TreeParams params, List<StateEntry> leaf) {
        byte[] k = leaf.get(leaf.size() - 1).key().unsafeArray();
        return params.endsLeaf(k, 0, k.length) || leaf.size() >= params.leafMaxKeys();
    }
}
