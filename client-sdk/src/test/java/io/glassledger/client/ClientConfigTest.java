package io.glassledger.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.glassledger.verify.crypto.SigningKey;
import io.glassledger.verify.hash.Bytes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClientConfigTest {
    @TempDir
    Path dir;

    private ClientConfig.Builder valid() {
        return ClientConfig.builder().url("https://127.0.0.1:8443").apiKey("gl_secret")
                .signingKey(SigningKey.generate());
    }

    @Test
    void defaults() {
        ClientConfig c = valid().build();
        assertEquals(Duration.ofMillis(100), c.verifyDelay());
        assertEquals(Duration.ofSeconds(2), c.proofWait());
        assertEquals(List.of(), c.auditors());
        assertFalse(c.toString().contains("gl_secret"), "toString hides the API key");
    }

    @Test
    void promiseDeadline_countsPersistIntervals_cappedAndDefaulted() {
        ClientConfig c = valid().verifyDelay(Duration.ofMillis(100)).promiseDeadlineIntervals(10).build();
        assertEquals(Duration.ofMillis(100 + 10 * 20), c.promiseDeadline(Duration.ofMillis(20)), "the server's");
        assertEquals(Duration.ofMillis(100).plus(ClientConfig.MAX_PERSIST_INTERVAL.multipliedBy(10)),
                c.promiseDeadline(Duration.ofHours(1)), "a server cannot put its deadline off");
        assertEquals(Duration.ofMillis(100).plus(ClientConfig.DEFAULT_PERSIST_INTERVAL.multipliedBy(10)),
                c.promiseDeadline(null), "a server that states none");
        ClientConfig own = valid().verifyDelay(Duration.ZERO).promiseDeadlineIntervals(3)
                .persistInterval(Duration.ofMillis(50)).build();
        assertEquals(Duration.ofMillis(150), own.promiseDeadline(Duration.ofSeconds(5)), "the configured one wins");
        ClientConfig d = valid().build();
        assertEquals(ClientConfig.DEFAULT_PROMISE_DEADLINE_INTERVALS, d.promiseDeadlineIntervals());
        assertEquals(ClientConfig.DEFAULT_MAX_UNVERIFIED_PROMISES, d.maxUnverifiedPromises());
        assertEquals(64L << 20, d.maxResponseBytes());
    }

    @Test
    void invalidPromiseAndResponseSettings_areRefused() {
        assertThrows(IllegalArgumentException.class, () -> valid().promiseDeadlineIntervals(0).build());
        assertThrows(IllegalArgumentException.class, () -> valid().persistInterval(Duration.ZERO).build());
        assertThrows(IllegalArgumentException.class, () -> valid().persistInterval(Duration.ofSeconds(11)).build());
        assertThrows(IllegalArgumentException.class, () -> valid().maxUnverifiedPromises(0).build());
        assertThrows(IllegalArgumentException.class, () -> valid().maxResponseBytes(100).build());
    }

    @Test
    void invalidSettings_areRefused() {
        assertThrows(IllegalArgumentException.class, () -> valid().url("http://127.0.0.1:8443").build());
        // auditors over TLS only, and one pin per auditor
        assertThrows(IllegalArgumentException.class, () -> valid().auditors(List.of(
                java.net.URI.create("http://127.0.0.1:8480"))).build());
        assertThrows(IllegalArgumentException.class, () -> valid().auditors(List.of(
                java.net.URI.create("https://127.0.0.1:8480"), java.net.URI.create("https://127.0.0.1:8481")))
                .auditorPins(List.of("ab".repeat(32))).build());
        assertThrows(IllegalArgumentException.class, () -> valid().auditors(List.of(
                java.net.URI.create("https://127.0.0.1:8480"))).auditorPins(List.of("not a pin")).build());
        assertThrows(IllegalArgumentException.class, () -> valid().keyFile(dir.resolve("k")).build());
        assertThrows(IllegalArgumentException.class, () -> valid().signingKey(null).build());
        assertThrows(IllegalArgumentException.class, () -> valid().proofWait(Duration.ofSeconds(11)).build());
        assertThrows(IllegalArgumentException.class, () -> valid().verifyDelay(Duration.ofMillis(-1)).build());
        assertThrows(IllegalArgumentException.class, () -> valid().pinnedCertSha256("abcd").build());
        assertThrows(NullPointerException.class, () -> valid().apiKey(null).build());
    }

    @Test
    void fingerprint_acceptsKeytoolForm() {
        String hex = "30:0F:DE:4A:13:9A:78:6E:97:AA:29:94:EC:95:58:77:41:42:65:1B:D2:0B:94:AE:70:1C:5B:05:BE:84:6F:60";
        assertEquals("300fde4a139a786e97aa2994ec9558774142651bd20b94ae701c5b05be846f60",
                valid().pinnedCertSha256(hex).build().pinnedCertSha256());
    }

    @Test
    void keyFile_createdWithMode600_andReadBack() throws IOException {
        Path f = dir.resolve("new").resolve("client.key");
        SigningKey k = KeyFile.loadOrCreate(f);
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(f)));
        assertEquals(k.publicKey(), KeyFile.loadOrCreate(f).publicKey());
        assertEquals(Bytes.of(k.seed()).hex(), Files.readString(f).trim());
        Files.writeString(f, "not a key");
        assertThrows(IOException.class, () -> KeyFile.load(f));
    }

    @Test
    void violation_reachesTheHandlerOnce() {
        List<IntegrityViolation> seen = new ArrayList<>();
        Violations vs = new Violations(seen::add);
        IntegrityViolation v = IntegrityViolation.builder(IntegrityViolation.Kind.FORK, "two heads").build();
        vs.report(v);
        vs.watch(java.util.concurrent.CompletableFuture.failedFuture(
                new java.util.concurrent.CompletionException(v)));
        assertEquals(List.of(v), seen);
    }
}
