package io.glassledger.server.replication;

import io.glassledger.verify.codec.ByteReader;
import io.glassledger.verify.codec.ByteWriter;
import io.glassledger.verify.codec.MalformedException;
import io.glassledger.verify.crypto.Ed25519;
import io.glassledger.verify.hash.Bytes;
import java.nio.charset.StandardCharsets;

/**
 * A client key's registration as a replicated shard's log carries it (an extension record, FORMAT.md §15.5):
 * {@code u8 kind (1) ‖ varint n ‖ n bytes of the identity (UTF-8) ‖ 32-byte Ed25519 public key}.
 */
public record ClientKeyChange(String clientId, Bytes publicKey) {
    static final int KIND_CLIENT_KEY = 1;
    private static final int MAX_ID_BYTES = 256;

    public byte[] encode() {
        byte[] id = clientId.getBytes(StandardCharsets.UTF_8);
        return new ByteWriter(2 + id.length + 32).u8(KIND_CLIENT_KEY).lengthPrefixed(id)
                .raw(publicKey.toByteArray()).toByteArray();
    }

    static ClientKeyChange decode(byte[] payload) {
        ByteReader in = new ByteReader(payload);
        int kind = in.u8();
        if (kind != KIND_CLIENT_KEY) {
            throw new MalformedException("unknown extension record kind " + kind);
        }
        String id = new String(in.lengthPrefixed(MAX_ID_BYTES).toByteArray(), StandardCharsets.UTF_8);
        Bytes key = in.bytes(Ed25519.PUBLIC_KEY_BYTES);
        in.expectEnd();
        return new ClientKeyChange(id, key);
    }
}
