package io.glassledger.server.auth;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.glassledger.verify.crypto.Ed25519;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.server.LedgerProperties;
import io.glassledger.api.PrivateFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * API keys and registered client keys, kept in {@code <data>/auth/}: {@code api-keys.json} maps the SHA-256 (hex)
 * of each API key to its client identity and role (the keys themselves are never stored), {@code clients.json} maps
 * a client identity to its Ed25519 public key (hex). A public key belongs to one identity only: registering it for a
 * second one is refused ({@link KeyInUseException}), and a data directory in which two identities share a key (made
 * by an earlier version) is refused at start. Each file is rewritten with {@link PrivateFiles} (mode 600 from
 * creation, fsynced, renamed atomically).
 *
 * <p>First start makes an admin key, a client key for the identity {@code default} and an auditor key for the
 * identity {@code auditor}, and writes {@code <data>/credentials.txt} first, then {@code api-keys.json}, each
 * durably. A crash between the two leaves {@code credentials.txt} and no API keys: the next start re-derives the
 * hashes from {@code credentials.txt} (repair), so the keys handed out are always the keys that work.
 */
@Component
public class AuthStore {
    private static final Logger LOG = LoggerFactory.getLogger(AuthStore.class);
    private static final SecureRandom RANDOM = new SecureRandom();
    /** The identities and roles made at first start, in the order of {@code credentials.txt}. */
    private static final List<String[]> FIRST_START = List.of(new String[] {"admin", "admin"},
            new String[] {"default", "client"}, new String[] {"auditor", "auditor"});

    /** An API key's identity and role, by the key's SHA-256. */
    public record KeyEntry(String clientId, String role) {
    }

    private final ObjectMapper json = new ObjectMapper();
    private final Path keysFile;
    private final Path clientsFile;
    private final Map<String, KeyEntry> keys = new ConcurrentHashMap<>();
    private final Map<String, String> clients = new ConcurrentHashMap<>();
    /** Public key (hex) to the one identity it is registered for. */
    private final Map<String, String> owners = new ConcurrentHashMap<>();
    private final byte[] peerKeyHash;
    /** Set once the cluster directory holds the keys: it persists them, and this store writes no file of its own. */
    private volatile boolean directoryHeld;

    public AuthStore(LedgerProperties props) {
        String peer = props.cluster().peerKey();
        this.peerKeyHash = peer.isBlank() ? null : HexFormat.of().parseHex(hash(peer.trim()));
        Path dir = props.dataDir().resolve("auth");
        this.keysFile = dir.resolve("api-keys.json");
        this.clientsFile = dir.resolve("clients.json");
        Path creds = props.dataDir().resolve("credentials.txt");
        for (String[] idRole : FIRST_START) {
            String k = props.auth().keyOf(idRole[0]);
            if (!k.isEmpty() && peerKeyHash != null && MessageDigest.isEqual(peerKeyHash,
                    HexFormat.of().parseHex(hash(k)))) {
                throw new IllegalStateException("the configured API key of '" + idRole[0] + "' is the cluster's "
                        + "peer key (glassledger.cluster.peer-key): give each its own secret");
            }
        }
        try {
            Files.createDirectories(dir);
            if (Files.isRegularFile(keysFile)) {
                keys.putAll(json.readValue(keysFile.toFile(), new TypeReference<Map<String, KeyEntry>>() { }));
            }
            if (Files.exists(clientsFile)) {
                clients.putAll(json.readValue(clientsFile.toFile(), new TypeReference<Map<String, String>>() { }));
            }
            indexOwners();
            if (keys.isEmpty() && Files.exists(creds)) {
                repairFrom(creds, props.auth());
            } else if (keys.isEmpty()) {
                firstStart(creds, props.auth());
            } else if (!Files.exists(creds) && props.auth().adminKey().isEmpty() && props.auth().clientKey().isEmpty()
                    && props.auth().auditorKey().isEmpty()) {
                // Normal when the keys were copied from another shard or the file was removed once saved elsewhere.
                LOG.info("{} is absent: the API keys are known only to whoever saved them. If no one did (a first "
                        + "start interrupted under an earlier GlassLedger version), stop the server, delete {} and "
                        + "start again to make new first-start keys", creds.toAbsolutePath(),
                        keysFile.toAbsolutePath());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** One identity per public key, or no start: two identities sharing a key could decide each other's work. */
    private void indexOwners() {
        Map<String, java.util.SortedSet<String>> byKey = new java.util.TreeMap<>();
        clients.forEach((id, hex) -> byKey.computeIfAbsent(hex.toLowerCase(java.util.Locale.ROOT),
                k -> new java.util.TreeSet<>()).add(id));
        List<String> shared = new ArrayList<>();
        byKey.forEach((hex, ids) -> {
            if (ids.size() > 1) {
                shared.add(hex + " is registered for " + String.join(", ", ids));
            } else {
                owners.put(hex, ids.first());
            }
        });
        if (!shared.isEmpty()) {
            throw new IllegalStateException(clientsFile.toAbsolutePath() + ": a public key belongs to one identity, "
                    + "but " + String.join("; ", shared) + ". Remove the identities that did not generate the key "
                    + "from that file (with the server stopped), then start again");
        }
    }

    private void firstStart(Path creds, LedgerProperties.Auth configured) throws IOException {
        StringBuilder text = new StringBuilder("# GlassLedger API keys made at first start. Keep them secret.\n");
        Map<String, KeyEntry> made = new LinkedHashMap<>();
        List<String> given = new ArrayList<>();
        List<String> random = new ArrayList<>();
        for (String[] idRole : FIRST_START) {
            String key = configured.keyOf(idRole[0]);
            if (key.isEmpty()) {
                key = randomKey();
                text.append(idRole[0]).append('\t').append(idRole[1]).append('\t').append(key).append('\n');
                random.add("'" + idRole[0] + "' (" + idRole[1] + ")");
            } else {
                given.add("'" + idRole[0] + "' (" + idRole[1] + ")");
            }
            made.put(hash(key), new KeyEntry(idRole[0], idRole[1]));
        }
        // credentials.txt first: a crash after it is repaired at the next start, and no key exists that no one knows.
        // Keys from configuration are not copied into it: whoever configured them holds them (a mounted secret).
        if (!random.isEmpty()) {
            PrivateFiles.write(creds, text.toString());
        }
        keys.putAll(made);
        write(keysFile, new LinkedHashMap<>(keys));
        if (!given.isEmpty()) {
            LOG.info("first start: API keys for {} taken from configuration (glassledger.auth.*)",
                    String.join(", ", given));
        }
        if (!random.isEmpty()) {
            LOG.info("first start: API keys for {} written to {}", String.join(", ", random),
                    creds.toAbsolutePath());
        }
    }

    /** The state a crash during first start leaves: credentials.txt written, api-keys.json not. */
    private void repairFrom(Path creds, LedgerProperties.Auth configured) throws IOException {
        for (String line : Files.readAllLines(creds, StandardCharsets.UTF_8)) {
            String[] f = line.split("\t");
            if (line.startsWith("#") || f.length != 3) {
                continue;
            }
            keys.put(hash(f[2].trim()), new KeyEntry(f[0], Role.parse(f[1]).wire()));
        }
        // The first-start keys that came from configuration are not in credentials.txt.
        for (String[] idRole : FIRST_START) {
            if (!configured.keyOf(idRole[0]).isEmpty()) {
                keys.put(hash(configured.keyOf(idRole[0])), new KeyEntry(idRole[0], idRole[1]));
            }
        }
        if (keys.isEmpty()) {
            throw new IllegalStateException(creds.toAbsolutePath() + " holds no API key and " + keysFile
                    + " is empty: delete " + creds + " to make new first-start keys");
        }
        write(keysFile, new LinkedHashMap<>(keys));
        LOG.warn("first start had been interrupted: the API keys in {} were restored into {}",
                creds.toAbsolutePath(), keysFile.toAbsolutePath());
    }

    /** An API key as listed: its id (the first 16 hex digits of its SHA-256), identity and role; never the key. */
    public record ApiKeyInfo(String keyId, String clientId, Role role) {
    }

    /** The id an API key is listed and revoked by. */
    public static String keyId(String apiKey) {
        return hash(apiKey).substring(0, KEY_ID_HEX);
    }

    private static final int KEY_ID_HEX = 16;

    /** Every API key (not the peer key, which is configuration), by identity then id. */
    public List<ApiKeyInfo> apiKeys() {
        List<ApiKeyInfo> out = new ArrayList<>();
        keys.forEach((h, e) -> out.add(new ApiKeyInfo(h.substring(0, KEY_ID_HEX), e.clientId(), Role.parse(e.role()))));
        out.sort(java.util.Comparator.comparing(ApiKeyInfo::clientId).thenComparing(ApiKeyInfo::keyId));
        return out;
    }

    /**
     * Revokes the API key with id {@code keyId}: it authenticates no more. The identity's registered Ed25519 key
     * stays (auditors check the identity's old signatures against it, and no one else may register it).
     *
     * @throws UnknownApiKeyException no key has this id
     * @throws LastAdminKeyException  it is the last admin key: revoking it would lock every admin out
     */
    public synchronized ApiKeyInfo revoke(String keyId) {
        List<String> matches = keys.keySet().stream().filter(h -> h.startsWith(keyId)).toList();
        if (keyId.length() != KEY_ID_HEX || matches.size() != 1) {
            throw new UnknownApiKeyException(keyId);
        }
        String h = matches.get(0);
        KeyEntry e = keys.get(h);
        if (Role.parse(e.role()) == Role.ADMIN
                && keys.values().stream().filter(k -> Role.parse(k.role()) == Role.ADMIN).count() == 1) {
            throw new LastAdminKeyException();
        }
        keys.remove(h);
        write(keysFile, new LinkedHashMap<>(keys));
        LOG.info("API key {} of '{}' ({}) revoked", keyId, e.clientId(), e.role());
        return new ApiKeyInfo(keyId, e.clientId(), Role.parse(e.role()));
    }

    /** No API key has this id. */
    public static final class UnknownApiKeyException extends RuntimeException {
        UnknownApiKeyException(String keyId) {
            super("no API key has the id " + keyId + " (the ids are listed by GET /v1/admin/api-keys)");
        }
    }

    /** The last admin key cannot be revoked. */
    public static final class LastAdminKeyException extends RuntimeException {
        LastAdminKeyException() {
            super("this is the last admin API key: create another admin key first, then revoke this one");
        }
    }

    /** Makes a new API key for {@code clientId} with {@code role}; returns the key (shown once). */
    public synchronized String newKey(String clientId, Role role) {
        if (clientId == null || !clientId.matches("[A-Za-z0-9._-]{1,64}")) {
            throw new IllegalArgumentException("clientId must be 1-64 of A-Z a-z 0-9 . _ -");
        }
        String key = randomKey();
        keys.put(hash(key), new KeyEntry(clientId, role.wire()));
        write(keysFile, new LinkedHashMap<>(keys));
        return key;
    }

    private static String randomKey() {
        byte[] raw = new byte[32];
        RANDOM.nextBytes(raw);
        return "gl_" + Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
    }

    public Optional<Principal> authenticate(String apiKey) {
        String h = hash(apiKey);
        if (peerKeyHash != null && MessageDigest.isEqual(peerKeyHash, HexFormat.of().parseHex(h))) {
            return Optional.of(new Principal("peer", Role.PEER));
        }
        KeyEntry e = keys.get(h);
        return e == null ? Optional.empty() : Optional.of(new Principal(e.clientId(), Role.parse(e.role())));
    }

    /** Every registered client identity and its Ed25519 public key. */
    public java.util.SortedMap<String, Bytes> clientKeys() {
        java.util.TreeMap<String, Bytes> out = new java.util.TreeMap<>();
        clients.forEach((id, hex) -> out.put(id, Bytes.fromHex(hex)));
        return out;
    }

    public Optional<Bytes> clientKey(String clientId) {
        return Optional.ofNullable(clients.get(clientId)).map(Bytes::fromHex);
    }

    /**
     * GlassDB's Init(pk). True if newly registered; false if the same key was registered before.
     *
     * @throws KeyRegisteredException the identity already has another key
     * @throws KeyInUseException      the key is another identity's
     */
    public synchronized boolean register(String clientId, Bytes publicKey) {
        if (!Ed25519.isValidPublicKey(publicKey)) {
            throw new IllegalArgumentException("not a valid Ed25519 public key");
        }
        String existing = clients.get(clientId);
        if (existing != null) {
            if (existing.equals(publicKey.hex())) {
                return false;
            }
            throw new KeyRegisteredException(clientId);
        }
        String owner = owners.get(publicKey.hex());
        if (owner != null) {
            throw new KeyInUseException(owner);
        }
        clients.put(clientId, publicKey.hex());
        owners.put(publicKey.hex(), clientId);
        write(clientsFile, new LinkedHashMap<>(clients));
        return true;
    }

    /**
     * A replicated shard's registration, applied from its log on every replica ({@link #register} with the same
     * rules, answered as a value): null if registered now or before with the same key, else {@code key_registered}
     * or {@code key_in_use:<owner>}. Replaying it changes nothing, so the journal may apply it again at start.
     */
    public synchronized String applyRegistration(String clientId, Bytes publicKey) {
        try {
            register(clientId, publicKey);
            return null;
        } catch (KeyRegisteredException e) {
            return "key_registered";
        } catch (KeyInUseException e) {
            return "key_in_use:" + e.owner();
        } catch (IllegalArgumentException e) {
            return "malformed";
        }
    }

    /** The refusal an {@link #applyRegistration} answer stands for. */
    public static RuntimeException refusal(String answer, String clientId) {
        if (answer.startsWith("key_in_use:")) {
            return new KeyInUseException(answer.substring("key_in_use:".length()));
        }
        if (answer.equals("key_registered")) {
            return new KeyRegisteredException(clientId);
        }
        return new IllegalArgumentException("not a valid Ed25519 public key");
    }

    /** Copies the client keys into {@code dir} (a replica's snapshot). */
    public synchronized void exportClients(Path dir) {
        try {
            Files.createDirectories(dir);
            json.writeValue(dir.resolve("clients.json").toFile(), new LinkedHashMap<>(clients));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * Adds the client keys exported into {@code dir} (a snapshot installed from the leader). Registrations only ever
     * add, so merging them with what this replica has is the leader's set at the snapshot or later.
     */
    public synchronized void importClients(Path dir) {
        Path f = dir.resolve("clients.json");
        if (!Files.exists(f)) {
            return;
        }
        try {
            Map<String, String> in = json.readValue(f.toFile(), new TypeReference<Map<String, String>>() { });
            in.forEach((id, key) -> applyRegistration(id, Bytes.fromHex(key)));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * From now on the cluster directory (server.directory) holds the keys: every change comes from its log, and it
     * persists them; this store only serves them.
     */
    public void heldByDirectory() {
        directoryHeld = true;
    }

    /** Replaces every API key and client key (the directory's state, at start or when seeded). */
    public synchronized void replaceAll(Map<String, KeyEntry> apiKeys, Map<String, String> clientKeys) {
        Map<String, String> before = new java.util.TreeMap<>(clients);
        keys.clear();
        keys.putAll(apiKeys);
        clients.clear();
        clients.putAll(clientKeys);
        owners.clear();
        clients.forEach((id, hex) -> owners.put(hex.toLowerCase(java.util.Locale.ROOT), id));
        if (!before.isEmpty() && !before.equals(new java.util.TreeMap<>(clients))) {
            LOG.info("client keys replaced by the cluster directory's ({} before, {} now)", before.size(),
                    clients.size());
        }
    }

    /** Every API key entry, by the key's SHA-256 (hex). */
    public synchronized Map<String, KeyEntry> keyEntries() {
        return new java.util.TreeMap<>(keys);
    }

    /** Every registered client key (hex), by identity. */
    public synchronized Map<String, String> clientEntries() {
        return new java.util.TreeMap<>(clients);
    }

    /** The SHA-256 (hex) an API key is kept by. */
    public static String keyHash(String apiKey) {
        return hash(apiKey);
    }

    /** A new API key as a generated secret and the entry it is kept by. */
    public record NewKey(String key, String hashHex) {
    }

    /** Generates an API key (not yet valid: the directory's entry makes it so). */
    public static NewKey generateKey() {
        String key = randomKey();
        return new NewKey(key, hash(key));
    }

    /**
     * The directory's API key change, applied on every member: null if applied, else {@code malformed}.
     */
    public synchronized String applyApiKey(String hashHex, String clientId, String role) {
        if (clientId == null || !clientId.matches("[A-Za-z0-9._-]{1,64}") || !hashHex.matches("[0-9a-f]{64}")) {
            return "malformed";
        }
        try {
            keys.put(hashHex, new KeyEntry(clientId, Role.parse(role).wire()));
        } catch (IllegalArgumentException e) {
            return "malformed";
        }
        write(keysFile, new LinkedHashMap<>(keys));
        return null;
    }

    /**
     * The directory's revocation, applied on every member ({@link #revoke} with the same rules): null if revoked,
     * else {@code unknown_api_key} or {@code last_admin_key}.
     */
    public synchronized String applyRevoke(String keyId) {
        try {
            revoke(keyId);
            return null;
        } catch (UnknownApiKeyException e) {
            return "unknown_api_key";
        } catch (LastAdminKeyException e) {
            return "last_admin_key";
        }
    }

    /** The refusal an {@link #applyRevoke} or {@link #applyApiKey} answer stands for. */
    public static RuntimeException revokeRefusal(String answer, String keyId) {
        return switch (answer) {
            case "last_admin_key" -> new LastAdminKeyException();
            case "unknown_api_key" -> new UnknownApiKeyException(keyId);
            default -> new IllegalArgumentException("the directory refused the change: " + answer);
        };
    }

    /** The identity already has another key: keys are not replaced silently. */
    public static final class KeyRegisteredException extends RuntimeException {
        KeyRegisteredException(String clientId) {
            super("identity " + clientId + " already registered a different Ed25519 key, and an identity keeps its "
                    + "one signing key for good (auditors check its old signatures against it). Sign with that "
                    + "key's file, or have an admin create an API key for another identity (ledger-cli admin "
                    + "create-key NAME --role client) and use it with a new key file");
        }
    }

    /** The key is already registered for another identity: a key speaks for one identity only. */
    public static final class KeyInUseException extends RuntimeException {
        KeyInUseException(String owner) {
            // The owner's name is not secret to an admin, but a client learns only that the key is taken.
            super("this Ed25519 public key is registered for another identity, and a key speaks for one identity "
                    + "only: give this identity a key file of its own (--key-file, or a new SigningKey in the SDK)");
            this.owner = owner;
        }

        private final String owner;

        /** The identity the key belongs to (for logs, not for the caller). */
        public String owner() {
            return owner;
        }
    }

    private void write(Path p, Object value) {
        if (directoryHeld) {
            return;  // the directory's state file holds it, with the entry it was applied at
        }
        try {
            PrivateFiles.write(p, json.writerWithDefaultPrettyPrinter().writeValueAsString(value));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String hash(String key) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(key.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
