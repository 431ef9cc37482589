package io.glassledger.server.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.glassledger.verify.crypto.SigningKey;
import io.glassledger.server.LedgerProperties;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

/** The API key store's files: private from creation, first start atomic or repaired, one identity per key. */
class AuthStoreTest {
    @TempDir
    Path dir;

    private LedgerProperties props() {
        return props(Map.of());
    }

    private LedgerProperties props(Map<String, String> more) {
        Map<String, String> all = new java.util.HashMap<>(more);
        all.put("glassledger.data-dir", dir.toString());
        return new Binder(new MapConfigurationPropertySource(all)).bind("glassledger", LedgerProperties.class).get();
    }

    private static final String ADMIN = "admin-key-from-a-mounted-secret-0001";
    private static final String CLIENT = "client-key-from-a-mounted-secret-0002";
    private static final String AUDITOR = "auditor-key-from-a-mounted-secret-0003";

    @Test
    void firstStart_withConfiguredKeys_usesThem_andWritesNoCredentialsFile() throws Exception {
        AuthStore store = new AuthStore(props(Map.of("glassledger.auth.admin-key", ADMIN,
                "glassledger.auth.client-key", CLIENT, "glassledger.auth.auditor-key", AUDITOR)));
        assertEquals(new Principal("admin", Role.ADMIN), store.authenticate(ADMIN).orElseThrow());
        assertEquals(new Principal("default", Role.CLIENT), store.authenticate(CLIENT).orElseThrow());
        assertEquals(new Principal("auditor", Role.AUDITOR), store.authenticate(AUDITOR).orElseThrow());
        assertFalse(Files.exists(dir.resolve("credentials.txt")), "the keys are in the secret, not copied to disk");
        String onDisk = Files.readString(dir.resolve("auth").resolve("api-keys.json"));
        for (String k : new String[] {ADMIN, CLIENT, AUDITOR}) {
            assertFalse(onDisk.contains(k), "only hashes are stored");
        }
        // A restart with other configured keys changes nothing: they are read at the first start only.
        AuthStore again = new AuthStore(props(Map.of("glassledger.auth.admin-key", "another-admin-key-given-later-0004")));
        assertTrue(again.authenticate(ADMIN).isPresent());
        assertTrue(again.authenticate("another-admin-key-given-later-0004").isEmpty());
    }

    @Test
    void firstStart_withSomeKeysConfigured_makesTheOthers_andListsOnlyThoseInCredentials() throws Exception {
        AuthStore store = new AuthStore(props(Map.of("glassledger.auth.admin-key", ADMIN)));
        Map<String, String> creds = credentials();
        assertEquals(java.util.Set.of("default", "auditor"), creds.keySet());
        assertEquals("admin", store.authenticate(ADMIN).orElseThrow().clientId());
        creds.forEach((id, key) -> assertEquals(id, store.authenticate(key).orElseThrow().clientId()));
        // The crash between the two writes: the repair restores the configured key too.
        Files.delete(dir.resolve("auth").resolve("api-keys.json"));
        AuthStore repaired = new AuthStore(props(Map.of("glassledger.auth.admin-key", ADMIN)));
        assertEquals("admin", repaired.authenticate(ADMIN).orElseThrow().clientId());
        creds.forEach((id, key) -> assertEquals(id, repaired.authenticate(key).orElseThrow().clientId()));
    }

    @Test
    void configuredKeys_tooShort_shared_orThePeerKey_areRefused_withoutEchoingThem() {
        Exception shortKey = assertThrows(Exception.class,
                () -> props(Map.of("glassledger.auth.admin-key", "short-secret")));
        assertFalse(stackText(shortKey).contains("short-secret"), stackText(shortKey));
        assertTrue(stackText(shortKey).contains("at least 24"), stackText(shortKey));
        Exception shared = assertThrows(Exception.class, () -> props(Map.of("glassledger.auth.admin-key", ADMIN,
                "glassledger.auth.auditor-key", ADMIN)));
        assertFalse(stackText(shared).contains(ADMIN), stackText(shared));
        Exception spaced = assertThrows(Exception.class,
                () -> props(Map.of("glassledger.auth.client-key", "a key with spaces in it, long enough")));
        assertTrue(stackText(spaced).contains("printable"), stackText(spaced));
        Exception peer = assertThrows(IllegalStateException.class, () -> new AuthStore(props(Map.of(
                "glassledger.auth.admin-key", ADMIN, "glassledger.cluster.peer-key", ADMIN))));
        assertFalse(peer.getMessage().contains(ADMIN), peer.getMessage());
        assertFalse(Files.exists(dir.resolve("auth").resolve("api-keys.json")), "refused before anything is written");
    }

    private static String stackText(Throwable t) {
        StringBuilder b = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            b.append(c).append('\n');
        }
        return b.toString();
    }

    private Map<String, String> credentials() throws IOException {
        Map<String, String> out = new LinkedHashMap<>();
        for (String line : Files.readAllLines(dir.resolve("credentials.txt"))) {
            String[] f = line.split("\t");
            if (f.length == 3) {
                out.put(f[0], f[2]);
            }
        }
        return out;
    }

    private static void assertAuthenticates(AuthStore store, Map<String, String> creds) {
        assertEquals(3, creds.size(), creds.toString());
        creds.forEach((id, key) -> assertEquals(id, store.authenticate(key).orElseThrow().clientId()));
    }

    @Test
    void firstStart_crashBeforeTheApiKeysLand_nextStartRepairsFromCredentials() throws Exception {
        // The api-keys.json write fails (a directory holds its name), as a crash between the two writes would.
        Path keys = Files.createDirectories(dir.resolve("auth").resolve("api-keys.json"));
        Files.writeString(keys.resolve("blocker"), "x");
        assertThrows(RuntimeException.class, () -> new AuthStore(props()));
        assertTrue(Files.exists(dir.resolve("credentials.txt")), "credentials.txt is written before the API keys");
        Map<String, String> handedOut = credentials();
        Files.delete(keys.resolve("blocker"));
        Files.delete(keys);

        AuthStore repaired = new AuthStore(props());
        assertAuthenticates(repaired, handedOut);
        assertEquals(handedOut, credentials(), "the repair keeps the keys already handed out");
    }

    @Test
    void firstStart_credentialsWithoutApiKeys_keysOfTheFileWork() throws Exception {
        new AuthStore(props());
        Map<String, String> handedOut = credentials();
        Files.delete(dir.resolve("auth").resolve("api-keys.json"));  // the state a crash between the writes leaves
        AuthStore again = new AuthStore(props());
        assertAuthenticates(again, handedOut);
        assertEquals(handedOut, credentials());
    }

    @Test
    void secretFiles_areOwnerOnly_andAPlantedTemporaryFileIsNotWrittenThrough() throws Exception {
        Path outside = Files.createDirectories(dir.resolve("elsewhere")).resolve("leak");
        Files.createSymbolicLink(dir.resolve("credentials.txt.tmp"), outside);
        Files.createDirectories(dir.resolve("auth"));
        Files.createSymbolicLink(dir.resolve("auth").resolve("api-keys.json.tmp"), outside);
        AuthStore store = new AuthStore(props());
        store.register("default", SigningKey.generate().publicKey());
        assertFalse(Files.exists(outside), "a secret was written through a planted link");
        for (Path p : new Path[] {dir.resolve("credentials.txt"), dir.resolve("auth").resolve("api-keys.json"),
            dir.resolve("auth").resolve("clients.json")}) {
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(p)), p.toString());
        }
        try (var files = Files.list(dir.resolve("auth"))) {
            assertEquals(0, files.filter(p -> p.getFileName().toString().endsWith(".tmp")
                    && !Files.isSymbolicLink(p)).count(), "no temporary file left behind");
        }
    }

    @Test
    void register_keyOfAnotherIdentity_isRefused() {
        AuthStore store = new AuthStore(props());
        var key = SigningKey.generate().publicKey();
        assertTrue(store.register("default", key));
        var e = assertThrows(AuthStore.KeyInUseException.class, () -> store.register("mallory", key));
        assertEquals("default", e.owner());
        assertTrue(store.clientKey("mallory").isEmpty());
        assertFalse(store.register("default", key), "the owner registering it again is idempotent");
        // And after a restart, from clients.json.
        AuthStore restarted = new AuthStore(props());
        assertThrows(AuthStore.KeyInUseException.class, () -> restarted.register("mallory", key));
    }

    @Test
    void start_withTwoIdentitiesSharingAKey_isRefusedNamingThem() throws Exception {
        new AuthStore(props());
        String hex = SigningKey.generate().publicKey().hex();
        Files.writeString(dir.resolve("auth").resolve("clients.json"),
                "{\"default\": \"" + hex + "\", \"mallory\": \"" + hex + "\"}");
        var e = assertThrows(IllegalStateException.class, () -> new AuthStore(props()));
        assertTrue(e.getMessage().contains("default, mallory") && e.getMessage().contains(hex), e.getMessage());
    }

    @Test
    void revoke_keyNoLongerAuthenticates_survivesRestart_identityKeepsItsSigningKey() throws Exception {
        AuthStore store = new AuthStore(props());
        Map<String, String> creds = credentials();
        var signing = SigningKey.generate().publicKey();
        store.register("default", signing);
        String second = store.newKey("default", Role.CLIENT);
        String id = AuthStore.keyId(creds.get("default"));
        assertEquals(4, store.apiKeys().size());
        assertEquals("default", store.revoke(id).clientId());
        assertTrue(store.authenticate(creds.get("default")).isEmpty(), "revoked");
        assertEquals("default", store.authenticate(second).orElseThrow().clientId(), "the identity's other key works");
        assertEquals(signing, store.clientKey("default").orElseThrow(), "the signing key stays for auditors");
        assertThrows(AuthStore.UnknownApiKeyException.class, () -> store.revoke(id));
        assertThrows(AuthStore.UnknownApiKeyException.class, () -> store.revoke("0123"));

        AuthStore again = new AuthStore(props());
        assertTrue(again.authenticate(creds.get("default")).isEmpty(), "revocation is durable");
        assertTrue(again.apiKeys().stream().noneMatch(k -> k.keyId().equals(id)));
    }

    @Test
    void revoke_lastAdminKey_isRefusedUntilAnotherExists() throws Exception {
        AuthStore store = new AuthStore(props());
        String admin = AuthStore.keyId(credentials().get("admin"));
        assertThrows(AuthStore.LastAdminKeyException.class, () -> store.revoke(admin));
        String other = store.newKey("ops", Role.ADMIN);
        store.revoke(admin);
        assertEquals("ops", store.authenticate(other).orElseThrow().clientId());
        assertThrows(AuthStore.LastAdminKeyException.class, () -> store.revoke(AuthStore.keyId(other)));
    }

    @Test
    void keyRegistered_detailExplainsTheRuleAndWhatToDo() {
        AuthStore store = new AuthStore(props());
        store.register("default", SigningKey.generate().publicKey());
        var e = assertThrows(AuthStore.KeyRegisteredException.class,
                () -> store.register("default", SigningKey.generate().publicKey()));
        assertTrue(e.getMessage().contains("one signing key") && e.getMessage().contains("admin create-key"),
                e.getMessage());
    }
}
