package io.glassledger.client;

import io.glassledger.verify.crypto.SigningKey;
import io.glassledger.verify.hash.Bytes;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HexFormat;

/**
 * The client's Ed25519 key on disk: the 32-byte seed as 64 hex digits (a trailing newline allowed). A missing file is
 * created with mode 600 (its directory 700) before the seed is written, so the seed is never readable by others.
 */
public final class KeyFile {
    private KeyFile() {
    }

    public static SigningKey loadOrCreate(Path file) throws IOException {
        if (!Files.exists(file)) {
            SigningKey k = SigningKey.generate();
            Path dir = file.toAbsolutePath().getParent();
            if (!Files.exists(dir)) {
                Files.createDirectories(dir, posix("rwx------"));
            }
            try {
                Files.createFile(file, posix("rw-------"));
                Files.write(file, (Bytes.of(k.seed()).hex() + "\n").getBytes(StandardCharsets.US_ASCII));
                return k;
            } catch (FileAlreadyExistsException raced) {
                // another process created it first: use theirs
            }
        }
        return load(file);
    }

    public static SigningKey load(Path file) throws IOException {
        String hex = Files.readString(file, StandardCharsets.US_ASCII).trim();
        if (hex.length() != 64) {
            throw new IOException("key file " + file + " must hold a 32-byte Ed25519 seed as 64 hex digits");
        }
        try {
            return SigningKey.fromSeed(HexFormat.of().parseHex(hex));
        } catch (IllegalArgumentException e) {
            throw new IOException("key file " + file + " is not hex", e);
        }
    }

    private static FileAttribute<?>[] posix(String perms) {
        if (!java.nio.file.FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
            return new FileAttribute<?>[0];
        }
        return new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(perms))};
    }
}
