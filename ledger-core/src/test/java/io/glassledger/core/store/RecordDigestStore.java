package io.glassledger.core.store;

import io.glassledger.verify.hash.Hash;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * An in-memory store that also hashes every node record it is given, in hash order per batch: two runs of the same
 * operations give the same digest exactly when they write the same records (full or delta, byte for byte).
 */
public final class RecordDigestStore extends ForwardingNodeStore {
    private final MessageDigest md;

    public RecordDigestStore() {
        try {
            md = MessageDigest.getInstance("SHA-256");
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The digest of every node record written so far (and resets it). */
    public synchronized byte[] recordsDigest() {
        return md.digest();
    }

    @Override
    public synchronized void write(StoreBatch batch) {
        List<Map.Entry<Hash, byte[]>> nodes = new ArrayList<>(batch.nodes.entrySet());
        nodes.sort((a, b) -> java.util.Arrays.compareUnsigned(a.getKey().unsafeArray(), b.getKey().unsafeArray()));
        for (Map.Entry<Hash, byte[]> e : nodes) {
            md.update(e.getKey().unsafeArray());
            md.update(e.getValue());
        }
        inner.write(batch);
    }
}
