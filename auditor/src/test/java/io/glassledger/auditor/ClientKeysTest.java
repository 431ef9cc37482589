package io.glassledger.auditor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.glassledger.verify.crypto.SigningKey;
import io.glassledger.verify.hash.Bytes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The compliance team's list of client keys ({@code glassledger.auditor.client-keys}). */
class ClientKeysTest {
    @TempDir
    Path dir;

    @Test
    void readsKeysWithOptionalNamesAndSkipsCommentsAndBlankLines() throws Exception {
        Bytes a = SigningKey.generate().publicKey();
        Bytes b = SigningKey.generate().publicKey();
        Path f = Files.writeString(dir.resolve("keys"), "# clients of the payments team\n\n" + a.hex()
                + " payments\n  " + b.hex().toUpperCase() + "\n");
        Map<Bytes, String> keys = AuditService.clientKeys(f);
        assertThat(keys).containsEntry(a, "payments").containsEntry(b, "line 4").hasSize(2);
    }

    @Test
    void refusesAnythingButKeysNamingTheLine() throws Exception {
        Path shortKey = Files.writeString(dir.resolve("short"), "abcd\n");
        assertThat(assertThrows(IllegalStateException.class, () -> AuditService.clientKeys(shortKey)).getMessage())
                .contains("short:1").contains("32-byte");
        Path notHex = Files.writeString(dir.resolve("hex"), "# ok\n" + "zz".repeat(32) + "\n");
        assertThat(assertThrows(IllegalStateException.class, () -> AuditService.clientKeys(notHex)).getMessage())
                .contains("hex:2");
        Path empty = Files.writeString(dir.resolve("empty"), "# nothing\n");
        assertThat(assertThrows(IllegalStateException.class, () -> AuditService.clientKeys(empty)).getMessage())
                .contains("lists no key");
        assertThrows(IllegalStateException.class, () -> AuditService.clientKeys(dir.resolve("missing")));
    }
}
