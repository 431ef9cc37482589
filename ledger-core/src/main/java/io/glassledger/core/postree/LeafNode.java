package io.glassledger.core.postree;

import io.glassledger.core.codec.ByteWriter;
import io.glassledger.core.hash.Bytes;
import io.glassledger.core.hash.Hash;
import java.util.Arrays;
import java.util.List;

/** A level-0 node: entries in strictly increasing key order. Separators are derived from adjacent keys. */
public final class LeafNode extends Node {
    private final Entry[] entries;
    /** Total encoded bytes of the entries, or -1 until computed. */
    private int bytes;

    LeafNode(Entry[] entries) {
        this(entries, -1);
    }

    /** @param bytes the entries' total encoded length, if the caller knows it (-1 if not) */
    LeafNode(Entry[] entries, int bytes) {
        this.entries = entries;
        this.bytes = bytes;
    }

    /** The entries array itself, for in-place rebuilds that copy it. */
    Entry[] entryArray() {
        return entries;
    }

    public static LeafNode of(List<Entry> entries) {
        return new LeafNode(entries.toArray(new Entry[0]));
    }

    @Override
    public int level() {
        return 0;
    }

    @Override
    public int size() {
        return entries.length;
    }

    public Entry entry(int i) {
        return entries[i];
    }

    public List<Entry> entries() {
        return List.of(entries);
    }

    /** Index of {@code key}, or -(insertion point) - 1. */
    public int find(Bytes key) {
        int lo = 0;
        int hi = entries.length - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int c = entries[mid].compareKeyTo(key);
            if (c < 0) {
                lo = mid + 1;
            } else if (c > 0) {
                hi = mid - 1;
            } else {
                return mid;
            }
        }
        return -(lo + 1);
    }

    @Override
    public Hash itemHash(int i) {
        return entries[i].hash();
    }

    @Override
    public Bytes separator(int i) {
        return Entry.separator(entries[i - 1], entries[i]);
    }

    @Override
    public long count() {
        return entries.length;
    }

    @Override
    boolean sameItem(Node b, int i) {
        Entry x = entries[i];
        Entry y = ((LeafNode) b).entries[i];
        return x == y || x.equals(y);
    }

    @Override
    boolean sameSeparator(Node b, int i) {
        LeafNode o = (LeafNode) b;
        // Identity first: an in-place rebuild shares every unchanged entry, and reading keys would touch them all.
        return (entries[i - 1] == o.entries[i - 1] || entries[i - 1].keyEquals(o.entries[i - 1]))
                && (entries[i] == o.entries[i] || entries[i].keyEquals(o.entries[i]));
    }

    @Override
    int encodedSizeHint() {
        int n = bytes;
        if (n < 0) {
            n = 0;
            for (Entry e : entries) {
                n += e.encodedLength();
            }
            bytes = n;
        }
        return n;
    }

    @Override
    void writeItem(ByteWriter w, int i) {
        entries[i].write(w);
    }

    @Override
    Node withEdits(io.glassledger.core.codec.ByteReader r, int n) {
        Entry[] es = entries.clone();
        int size = encodedSizeHint();
        int own = 0;
        int last = -1;
        for (int k = 0; k < n; k++) {
            int i = r.varint(es.length - 1);
            if (i <= last) {
                throw new io.glassledger.core.codec.MalformedException("delta indexes not increasing");
            }
            last = i;
            size -= es[i].encodedLength();
            es[i] = Entry.read(r);
            size += es[i].encodedLength();
            own += es[i].encodedLength();
        }
        for (int i = 1; i < es.length; i++) {
            if (Entry.compareKeys(es[i - 1], es[i]) >= 0) {
                throw new io.glassledger.core.codec.MalformedException("delta breaks key order at " + i);
            }
        }
        LeafNode leaf = new LeafNode(es, size);
        leaf.ownBytes(own);
        return leaf;
    }

    @Override
    public void writeItems(ByteWriter w) {
        for (Entry e : entries) {
            e.write(w);
        }
    }

    @Override
    public String toString() {
        return "Leaf" + Arrays.toString(entries);
    }
}
