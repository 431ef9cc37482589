package io.glassledger.core.postree;

import io.glassledger.verify.hash.Hash;
import java.util.HashMap;
import java.util.Map;

/** Test node source: stores nodes by hash, round-tripping through the storage encoding. */
final class MemNodes implements NodeSource {
    final Map<Hash, byte[]> nodes = new HashMap<>();
    int reads;

    @Override
    public Node node(Hash hash) {
        reads++;
        byte[] b = nodes.get(hash);
        if (b == null) {
            throw new MissingNodeException(hash);
        }
        Node n = Node.decode(b);
        if (!n.hash().equals(hash)) {
            throw new AssertionError("stored node does not hash to its key");
        }
        return n;
    }

    Hash store(PosTree.Result r) {
        for (Node n : r.created()) {
            nodes.put(n.hash(), n.encode());
        }
        return r.root();
    }
}
