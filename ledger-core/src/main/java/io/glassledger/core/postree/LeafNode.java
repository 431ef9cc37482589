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
        return sameItemAt(b, i, i);
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

    /** Per entry: the reference, the entry object, its encoding, its hash and its key once made. */
    @Override
    int itemsWeight() {
        long w = arrayBytes((long) REF * entries.length);
        for (Entry e : entries) {
            w += entryWeight(e);
        }
        return (int) Math.min(Integer.MAX_VALUE, w);
    }

    /** One entry's part of {@link #itemsWeight()}. */
    static long entryWeight(Entry e) {
        return REF + ENTRY_OBJECT + arrayBytes(e.encodedLength()) + HASH_BYTES + BYTES_OBJECT + arrayBytes(e.keyLength());
    }

    /** An {@link Entry} object without its arrays. */
    private static final int ENTRY_OBJECT = 64;

    @Override
    boolean sameItemAt(Node b, int i, int j) {
        Entry x = entries[j];
        Entry y = ((LeafNode) b).entries[i];
        return x == y || x.equals(y);
    }

    @Override
    long syncByKey(Node b, int i, int j) {
        Entry[] o = ((LeafNode) b).entries;
        int di = 0;
        int dj = 0;
        while (i + di < o.length && j + dj < entries.length) {
            Entry x = o[i + di];
            Entry y = entries[j + dj];
            int c = Entry.compareKeys(x, y);
            if (c < 0) {
                di++;
            } else if (c > 0) {
                dj++;
            } else if (x == y || x.equals(y)) {
                break;
            } else {
                di++;
                dj++;
            }
        }
        if (i + di >= o.length || j + dj >= entries.length) {
            return ((long) (o.length - i) << 32) | (entries.length - j);
        }
        return ((long) di << 32) | dj;
    }

    @Override
    void writeOpItem(ByteWriter w, int i) {
        entries[i].write(w);
    }

    @Override
    Node withOps(io.glassledger.core.codec.ByteReader r, int n) {
        List<Entry> out = new java.util.ArrayList<>(entries.length + 4);
        int size = encodedSizeHint();
        int at = 0;
        for (int k = 0; k < n; k++) {
            int skip = r.varint(entries.length - at);
            for (int c = 0; c < skip; c++) {
                out.add(entries[at++]);
            }
            int removed = r.varint(entries.length - at);
            int added = r.varint(1 << 20);
            if (removed == 0 && added == 0) {
                throw new io.glassledger.core.codec.MalformedException("empty delta run");
            }
            for (int c = 0; c < removed; c++) {
                size -= entries[at++].encodedLength();
            }
            for (int c = 0; c < added; c++) {
                Entry e = Entry.read(r);
                out.add(e);
                size += e.encodedLength();
            }
        }
        while (at < entries.length) {
            out.add(entries[at++]);
        }
        if (out.isEmpty() || out.size() > 1 << 20) {
            throw new io.glassledger.core.codec.MalformedException("delta gives " + out.size() + " entries");
        }
        for (int i = 1; i < out.size(); i++) {
            if (Entry.compareKeys(out.get(i - 1), out.get(i)) >= 0) {
                throw new io.glassledger.core.codec.MalformedException("delta breaks key order at " + i);
            }
        }
        return new LeafNode(out.toArray(new Entry[0]), size);
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
