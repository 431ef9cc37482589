package io.glassledger.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Secret files are owner-only from the moment they exist, durable, and never written through a planted name. */
class PrivateFilesTest {
    @TempDir
    Path dir;

    private static String mode(Path p) throws java.io.IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
    }

    @Test
    void write_temporaryFileIsOwnerOnlyAndEmptyWhenCreated() throws Exception {
        Path target = dir.resolve("server.key");
        List<String> seen = new ArrayList<>();
        PrivateFiles.write(target, "secret".getBytes(StandardCharsets.UTF_8), tmp -> {
            seen.add(mode(tmp) + " " + Files.size(tmp) + " " + tmp.getParent().equals(dir));
        });
        assertEquals(List.of("rw------- 0 true"), seen, "mode and size of the temporary file at its creation");
        assertEquals("rw-------", mode(target));
        assertEquals("secret", Files.readString(target));
        try (var files = Files.list(dir)) {
            assertEquals(List.of(target), files.toList(), "nothing but the target is left");
        }
    }

    @Test
    void write_overABroaderFile_replacesItOwnerOnly() throws Exception {
        Path target = Files.writeString(dir.resolve("api-keys.json"), "old");
        Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rw-r--r--"));
        PrivateFiles.write(target, "new");
        assertEquals("rw-------", mode(target));
        assertEquals("new", Files.readString(target));
    }

    @Test
    void writePrivate_plantedLinkAtTheOldTemporaryName_isNotWrittenThrough() throws Exception {
        Path outside = Files.createDirectories(dir.resolve("attacker")).resolve("copy");
        Files.createSymbolicLink(dir.resolve("credentials.txt.tmp"), outside);
        SelfSignedCertificate.writePrivate(dir.resolve("credentials.txt"), "admin\tadmin\tgl_secret\n");
        assertFalse(Files.exists(outside), "the secret went through the planted link");
        assertEquals("rw-------", mode(dir.resolve("credentials.txt")));
    }

    @Test
    void loadOrCreate_keyStoreAndPasswordAreOwnerOnly() throws Exception {
        var ks = SelfSignedCertificate.loadOrCreate(dir.resolve("tls"));
        assertEquals("rw-------", mode(ks.path()));
        assertEquals("rw-------", mode(dir.resolve("tls").resolve("server.p12.password")));
        var again = SelfSignedCertificate.loadOrCreate(dir.resolve("tls"));
        assertEquals(ks.fingerprint(), again.fingerprint());
        assertTrue(Files.size(ks.path()) > 0);
        assertArrayEquals(Files.readAllBytes(ks.path()), Files.readAllBytes(again.path()));
    }
}
