package io.glassledger.verify.proof;

import io.glassledger.verify.hash.Bytes;
import java.util.Objects;

/** A claim about one key: it has {@code value}, or (value null) it has none. */
public record KeyClaim(Bytes key, Bytes value) {
    public KeyClaim {
        Objects.requireNonNull(key, "key");
    }

    public static KeyClaim present(Bytes key, Bytes value) {
        return new KeyClaim(key, Objects.requireNonNull(value, "value"));
    }

    public static KeyClaim absent(Bytes key) {
        return new KeyClaim(key, null);
    }

    public boolean isAbsent() {
        return value == null;
    }
}
