package io.glassledger.verify.entry;

import io.glassledger.verify.hash.Bytes;
import java.util.Objects;

/** A put (value non-null) or a delete (value null) of one key in a batch. */
public record Mutation(Bytes key, Bytes value) {
    public Mutation {
        Objects.requireNonNull(key, "key");
    }

    public static Mutation put(Bytes key, Bytes value) {
        return new Mutation(key, Objects.requireNonNull(value, "value"));
    }

    public static Mutation delete(Bytes key) {
        return new Mutation(key, null);
    }

    public boolean isDelete() {
        return value == null;
    }
}
