package io.glassledger.core.vectors;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.glassledger.verify.codec.ByteWriter;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hash;
import io.glassledger.verify.entry.Entry;
import io.glassledger.core.postree.IndexNode;
import io.glassledger.core.postree.Node;
import io.glassledger.core.postree.TreeParams;
import java.util.Arrays;

/**
 * Encodings that a decoder must reject: tree parameters (primitives.json {@code treeParamsInvalid}, FORMAT.md §5.1)
 * and node encodings (tree-build.json {@code invalidNodes}, §4.4). Each is checked to be rejected before it is
 * written.
 */
final class InvalidEncodings {
    private InvalidEncodings() {
    }

    static ArrayNode treeParams() {
        ArrayNode a = Json.array();
        bad(a, "leaf-max-keys-over-2^16", "leafMaxKeys 2^16 + 1", 8, (1 << 16) + 1, 2, 8);
        bad(a, "index-max-fanout-over-1024", "indexMaxFanout 1025", 8, 256, 2, 1025);
        bad(a, "leaf-target-not-power-of-two", "leafTargetKeys 6", 6, 256, 2, 8);
        bad(a, "leaf-target-below-2", "leafTargetKeys 1", 1, 256, 2, 8);
        bad(a, "index-target-not-power-of-two", "indexTargetFanout 6", 8, 256, 6, 8);
        bad(a, "index-target-1", "indexTargetFanout 1 (2^0): every child would close its index node, and a tree "
                + "build would never reduce to one root", 8, 256, 1, 8);
        bad(a, "leaf-max-below-target", "leafMaxKeys 4 < leafTargetKeys 8", 8, 4, 2, 8);
        bad(a, "index-max-below-target", "indexMaxFanout 4 < indexTargetFanout 8", 8, 256, 8, 4);
        bad(a, "index-max-over-decoding-limit", "indexMaxFanout 2^20 + 1: over the varint limit",
                8, 256, 2, (1 << 20) + 1);
        String dflt = Json.hex(TreeParams.DEFAULT.encode());
        badHex(a, "trailing-byte", "DEFAULT followed by 00", dflt + "00");
        badHex(a, "truncated", "DEFAULT without its last byte", dflt.substring(0, dflt.length() - 2));
        return a;
    }

    private static void bad(ArrayNode a, String name, String why, long lt, long lm, long it, long im) {
        badHex(a, name, why, Json.hex(new ByteWriter().varint(lt).varint(lm).varint(it).varint(im).toByteArray()));
    }

    private static void badHex(ArrayNode a, String name, String why, String hex) {
        try {
            TreeParams.decode(Json.unhex(hex));
            throw new IllegalStateException("tree params " + name + " decode");
        } catch (io.glassledger.verify.codec.MalformedException expected) {
            ObjectNode o = a.addObject();
            o.put("name", name);
            o.put("encoding", hex);
            o.put("why", why);
        }
    }

    /** Storage encodings that a node decoder must reject (FORMAT.md §4.4). */
    static ArrayNode nodes(ArrayNode trees) {
        ArrayNode out = Json.array();
        byte[] index = null;
        for (com.fasterxml.jackson.databind.JsonNode t : trees) {
            if (t.get("name").asText().equals("tiny")) {
                for (com.fasterxml.jackson.databind.JsonNode n : t.get("nodes")) {
                    byte[] enc = Json.unhex(n.get("encoding").asText());
                    if (n.get("level").asInt() == 1 && enc[1] >= 2) {
                        index = enc;
                    }
                }
            }
        }
        if (index == null || index[1] < 2) {
            throw new IllegalStateException("the tiny tree has no index node of two or more children");
        }
        IndexNode in = (IndexNode) Node.decode(index);
        Hash h0 = in.child(0);
        Hash h1 = in.child(1);
        badNode(out, "empty-node", "count 0", new ByteWriter().u8(0).varint(0).toByteArray());
        badNode(out, "empty-index-node", "count 0", new ByteWriter().u8(1).varint(0).toByteArray());
        badNode(out, "index-child-count-zero", "the second child's entry count is 0",
                new ByteWriter().u8(1).varint(2).varint(3).hash(h0).lengthPrefixed(Bytes.utf8("m")).varint(0).hash(h1)
                        .toByteArray());
        badNode(out, "index-first-child-count-zero", "the first child's entry count is 0",
                new ByteWriter().u8(1).varint(2).varint(0).hash(h0).lengthPrefixed(Bytes.utf8("m")).varint(3).hash(h1)
                        .toByteArray());
        badNode(out, "index-child-count-non-minimal", "a child entry count varint 83 00",
                new ByteWriter().u8(1).varint(2).raw(new byte[] {(byte) 0x83, 0}).hash(h0)
                        .lengthPrefixed(Bytes.utf8("m")).varint(3).hash(h1).toByteArray());
        badNode(out, "index-without-counts", "a real index node (tiny, level 1) encoded without its child counts",
                withoutCounts(in));
        badNode(out, "index-empty-separator", "the second child's separator is empty",
                new ByteWriter().u8(1).varint(2).varint(3).hash(h0).lengthPrefixed(Bytes.EMPTY).varint(3).hash(h1)
                        .toByteArray());
        badNode(out, "index-separators-unsorted", "the third separator (c) below the second (m)",
                new ByteWriter().u8(1).varint(3).varint(3).hash(h0).lengthPrefixed(Bytes.utf8("m")).varint(3).hash(h1)
                        .lengthPrefixed(Bytes.utf8("c")).varint(3).hash(h0).toByteArray());
        badNode(out, "index-separators-not-increasing", "the third separator equals the second",
                new ByteWriter().u8(1).varint(3).varint(3).hash(h0).lengthPrefixed(Bytes.utf8("m")).varint(3).hash(h1)
                        .lengthPrefixed(Bytes.utf8("m")).varint(3).hash(h0).toByteArray());
        badNode(out, "index-separator-over-1024-bytes", "a 1025-byte separator",
                new ByteWriter().u8(1).varint(2).varint(3).hash(h0).lengthPrefixed(Bytes.wrap(new byte[1025]))
                        .varint(3).hash(h1).toByteArray());
        badNode(out, "index-counts-over-2^48", "child entry counts 2^47 and 2^47 + 1: their sum is over 2^48",
                new ByteWriter().u8(1).varint(2).varint(1L << 47).hash(h0).lengthPrefixed(Bytes.utf8("m"))
                        .varint((1L << 47) + 1).hash(h1).toByteArray());
        byte[] level255 = index.clone();
        level255[0] = (byte) 0xff;
        badNode(out, "level-255", "a real index node (tiny, level 1) with level byte ff: the tag of a delta record, "
                + "never a stored node's level (at most 254)", level255);
        badNode(out, "index-trailing-byte", "a real index node followed by 00",
                java.util.Arrays.copyOf(index, index.length + 1));
        badNode(out, "index-truncated", "a real index node without its last byte",
                java.util.Arrays.copyOf(index, index.length - 1));
        Entry a = Entry.of(Bytes.utf8("b"), Bytes.utf8("1"), 1);
        Entry b = Entry.of(Bytes.utf8("a"), Bytes.utf8("2"), 1);
        ByteWriter w = new ByteWriter().u8(0).varint(2);
        a.write(w);
        b.write(w);
        badNode(out, "leaf-keys-not-increasing", "entries b, a", w.toByteArray());
        w = new ByteWriter().u8(0).varint(2);
        a.write(w);
        a.write(w);
        badNode(out, "leaf-duplicate-key", "entry b twice", w.toByteArray());
        badNode(out, "leaf-empty-key", "one entry whose key is empty (00): value 76, version 1",
                new ByteWriter().u8(0).varint(1).varint(0).varint(2).u8('v').varint(1).toByteArray());
        badNode(out, "leaf-key-over-1024-bytes", "one entry whose key has 1025 bytes",
                new ByteWriter().u8(0).varint(1).lengthPrefixed(Bytes.wrap(filled(1025, 'k'))).varint(2).u8('v')
                        .varint(1).toByteArray());
        badNode(out, "node-count-over-2^20", "count 2^20 + 1",
                new ByteWriter().u8(0).varint((1 << 20) + 1).toByteArray());
        return out;
    }

    private static byte[] withoutCounts(IndexNode n) {
        ByteWriter w = new ByteWriter().u8(n.level()).varint(n.size());
        for (int i = 0; i < n.size(); i++) {
            if (i > 0) {
                w.lengthPrefixed(n.separator(i));
            }
            w.hash(n.child(i));
        }
        return w.toByteArray();
    }

    private static void badNode(ArrayNode a, String name, String why, byte[] enc) {
        try {
            Node.decode(enc);
            throw new IllegalStateException("invalid node " + name + " decodes");
        } catch (io.glassledger.verify.codec.MalformedException expected) {
            ObjectNode o = a.addObject();
            o.put("name", name);
            o.put("encoding", Json.hex(enc));
            o.put("why", why);
        }
    }


    static byte[] filled(int n, char c) {
        byte[] b = new byte[n];
        Arrays.fill(b, (byte) c);
        return b;
    }
}
