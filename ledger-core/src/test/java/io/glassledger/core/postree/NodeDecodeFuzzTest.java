package io.glassledger.core.postree;

import io.glassledger.verify.entry.Entry;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.glassledger.verify.codec.MalformedException;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hash;

/**
 * Node records (FORMAT.md §4.4), full or delta, are read from the store; auditors and proof checkers recompute
 * hashes from them. A full record decodes to the node whose encoding is the input, or throws
 * {@link MalformedException}; a delta record is applied to one of two fixed bases (a leaf, or an index node, chosen
 * by the first byte of the base hash it names) and gives a node, or throws {@link MalformedException}.
 */
class NodeDecodeFuzzTest {
    /** Three entries, keys a, c, e. */
    static final LeafNode LEAF = LeafNode.of(java.util.List.of(
            Entry.of(Bytes.utf8("a"), Bytes.utf8("1"), 1),
            Entry.of(Bytes.utf8("c"), null, 2),
            Entry.of(Bytes.utf8("e"), Bytes.EMPTY, 3)));
    /** Three children at level 1, separators c and e. */
    static final IndexNode INDEX = new IndexNode(1, new Hash[] {Hash.ZERO, LEAF.hash(), Hash.ZERO},
            new Bytes[] {Bytes.EMPTY, Bytes.utf8("c"), Bytes.utf8("e")}, new long[] {1, 3, 2});
    private static final NodeSource BASES = h -> (h.unsafeArray()[0] & 1) == 0 ? LEAF : INDEX;

    @FuzzTest(maxDuration = "10s")
    void decode(byte[] data) {
        try {
            Node n = Node.decode(data);
            assertArrayEquals(data, n.encode(), "a node has one encoding");
            n.hash();
        } catch (MalformedException expected) {
            // the documented failure
        }
        try {
            Node n = Node.decodeRecord(Hash.ZERO, data, BASES);
            byte[] full = n.encode();
            assertArrayEquals(full, Node.decode(full).encode(), "a delta gives a node that has one encoding");
        } catch (MalformedException expected) {
            // the documented failure
        }
    }
}
