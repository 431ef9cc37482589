package io.glassledger.server.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.glassledger.verify.crypto.SigningKey;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

/** The shard's signing key from configuration (the replicas of a group share it) or from its data directory. */
class ServerKeyTest {
    @TempDir
    Path dir;

    @Test
    void configuredKey_isUsed_writtenToTheDataDirectory_andAgreesWithItAfterwards() throws Exception {
        SigningKey given = SigningKey.generate();
        String hex = HexFormat.of().formatHex(given.seed());
        Path file = dir.resolve("server.key");
        assertEquals(given.publicKey(), Shard.loadOrCreateKey(file, hex).publicKey());
        assertEquals(hex, Files.readString(file).trim());
        assertEquals(given.publicKey(), Shard.loadOrCreateKey(file, hex).publicKey());
        assertEquals(given.publicKey(), Shard.loadOrCreateKey(file, "").publicKey(), "the data directory keeps it");
    }

    @Test
    void configuredKey_otherThanTheDataDirectorys_isRefused_namingPublicKeysOnly() throws Exception {
        Path file = dir.resolve("server.key");
        SigningKey existing = Shard.loadOrCreateKey(file, "");
        SigningKey other = SigningKey.generate();
        String otherHex = HexFormat.of().formatHex(other.seed());
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> Shard.loadOrCreateKey(file, otherHex));
        assertTrue(e.getMessage().contains(existing.publicKey().hex()), e.getMessage());
        assertTrue(e.getMessage().contains(other.publicKey().hex()), e.getMessage());
        assertFalse(e.getMessage().contains(otherHex), "the seed is a secret: " + e.getMessage());
        assertEquals(existing.publicKey(), Shard.loadOrCreateKey(file, "").publicKey(), "nothing was overwritten");
    }

    @Test
    void malformedConfiguredKey_isRefusedAtBinding_withoutEchoingIt() {
        Exception e = assertThrows(Exception.class, () -> new Binder(new MapConfigurationPropertySource(
                Map.of("glassledger.auth.server-key", "abc123-not-a-seed")))
                .bind("glassledger", io.glassledger.server.LedgerProperties.class).get());
        StringBuilder all = new StringBuilder();
        for (Throwable c = e; c != null; c = c.getCause()) {
            all.append(c).append('\n');
        }
        assertTrue(all.toString().contains("64 hex"), all.toString());
        assertFalse(all.toString().contains("abc123-not-a-seed"), all.toString());
    }
}
