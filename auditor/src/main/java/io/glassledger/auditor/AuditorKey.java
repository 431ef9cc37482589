package io.glassledger.auditor;

import io.glassledger.api.PrivateFiles;
import io.glassledger.verify.crypto.SigningKey;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;

/**
 * The auditor's own Ed25519 key, which signs its gossip: {@code <data>/auditor.key}, the 32-byte seed in hex, made at
 * first start with {@link PrivateFiles} (mode 600 from creation, fsynced). Its public key is what peers list in
 * {@code glassledger.auditor.peer-keys}.
 */
final class AuditorKey {
    static final String FILE = "auditor.key";

    private AuditorKey() {
    }

    static SigningKey loadOrCreate(Path dataDir) {
        Path p = dataDir.resolve(FILE);
        try {
            if (!Files.exists(p)) {
                SigningKey k = SigningKey.generate();
                PrivateFiles.write(p, HexFormat.of().formatHex(k.seed()) + "\n");
                return k;
            }
            String hex = Files.readString(p, StandardCharsets.US_ASCII).trim();
            if (hex.length() != 64) {
                throw new IllegalStateException(p + " must hold a 32-byte Ed25519 seed as 64 hex digits");
            }
            return SigningKey.fromSeed(HexFormat.of().parseHex(hex));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read or make the auditor key " + p, e);
        }
    }
}
