package io.glassledger.server.auth;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.glassledger.core.crypto.Ed25519;
import io.glassledger.core.hash.Bytes;
import io.glassledger.server.LedgerProperties;
import io.glassledger.api.SelfSignedCertificate;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * API keys and registered client keys, kept in {@code <data>/auth/}: {@code api-keys.json} maps the SHA-256 (hex)
 * of each API key to its client identity and role (the keys themselves are never stored), {@code clients.json} maps
 * a client identity to its Ed25519 public key (hex). Each file is rewritten atomically on change. On first start
 * an admin key, a client key for the identity {@code default} and an auditor key for the identity {@code auditor}
 * are made and written, once, to {@code <data>/credentials.txt} (mode 600).
 */
@Component
public class AuthStore {
    private static final Logger LOG = LoggerFactory.getLogger(AuthStore.class);
    private static final SecureRandom RANDOM = new SecureRandom();

    record KeyEntry(String clientId, String role) {
    }

    private final ObjectMapper json = new ObjectMapper();
    private final Path keysFile;
    private final Path clientsFile;
    private final Map<String, KeyEntry> keys = new ConcurrentHashMap<>();
    private final Map<String, String> clients = new ConcurrentHashMap<>();
    private final byte[] peerKeyHash;

    public AuthStore(LedgerProperties props) {
        String peer = props.cluster().peerKey();
        this.peerKeyHash = peer.isBlank() ? null : HexFormat.of().parseHex(hash(peer.trim()));
        Path dir = props.dataDir().resolve("auth");
        this.keysFile = dir.resolve("api-keys.json");
        this.clientsFile = dir.resolve("clients.json");
        try {
            Files.createDirectories(dir);
            if (Files.exists(keysFile)) {
                keys.putAll(json.readValue(keysFile.toFile(), new TypeReference<Map<String, KeyEntry>>() { }));
            }
            if (Files.exists(clientsFile)) {
                clients.putAll(json.readValue(clientsFile.toFile(), new TypeReference<Map<String, String>>() { }));
            }
            if (keys.isEmpty()) {
                String admin = newKey("admin", Role.ADMIN);
                String client = newKey("default", Role.CLIENT);
                String auditor = newKey("auditor", Role.AUDITOR);
                Path creds = props.dataDir().resolve("credentials.txt");
                SelfSignedCertificate.writePrivate(creds, "# GlassLedger API keys made at first start. Keep them secret.\n"
                        + "admin\tadmin\t" + admin + "\n" + "default\tclient\t" + client + "\n"
                        + "auditor\tauditor\t" + auditor + "\n");
                LOG.info("first start: API keys for 'admin' (admin), 'default' (client) and 'auditor' (auditor) "
                        + "written to {}", creds.toAbsolutePath());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Makes a new API key for {@code clientId} with {@code role}; returns the key (shown once). */
    public synchronized String newKey(String clientId, Role role) {
        if (clientId == null || !clientId.matches("[A-Za-z0-9._-]{1,64}")) {
            throw new IllegalArgumentException("clientId must be 1-64 of A-Z a-z 0-9 . _ -");
        }
        byte[] raw = new byte[32];
        RANDOM.nextBytes(raw);
        String key = "gl_" + Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
        keys.put(hash(key), new KeyEntry(clientId, role.wire()));
        write(keysFile, new LinkedHashMap<>(keys));
        return key;
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

    /** GlassDB's Init(pk). True if newly registered; false if the same key was registered before. */
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
        clients.put(clientId, publicKey.hex());
        write(clientsFile, new LinkedHashMap<>(clients));
        return true;
    }

    /** The identity already has another key: keys are not replaced silently. */
    public static final class KeyRegisteredException extends RuntimeException {
        KeyRegisteredException(String clientId) {
            super("client " + clientId + " already registered a different Ed25519 key");
        }
    }

    private void write(Path p, Object value) {
        try {
            SelfSignedCertificate.writePrivate(p, json.writerWithDefaultPrettyPrinter().writeValueAsString(value));
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
