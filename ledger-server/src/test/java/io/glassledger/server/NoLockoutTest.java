package io.glassledger.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.glassledger.verify.crypto.SigningKey;
import io.glassledger.verify.txn.SignedTransaction;
import io.glassledger.verify.txn.TxnDraft;
import io.glassledger.verify.hash.Bytes;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 30: 4,096 idle TLS keep-alive connections without a key refused every new connection, the liveness probe's
 * included. With the default limits, one address gets its share (glassledger.connections.max-per-address) and no
 * more, another address still commits, and the probe, on a port of its own, answers.
 */
class NoLockoutTest {
    static final int ATTEMPTS = 4_096;

    @TempDir
    Path dir;

    @Test
    void fourThousandIdleTlsConnectionsFromOneAddress_lockNobodyOut() throws Exception {
        List<SSLSocket> held = new ArrayList<>();
        try (TestServer s = new TestServer(dir.resolve("data"))) {
            int refused = 0;
            try {
                for (int i = 0; i < ATTEMPTS; i++) {
                    try {
                        held.add(RawTls.tls(s.port()));
                    } catch (IOException closedBeforeTheHandshake) {
                        refused++;
                    }
                }
                int perAddress = s.bean(io.glassledger.server.net.ConnectionProperties.class).maxPerAddress();
                assertEquals(perAddress, held.size(), "connections the server kept from 127.0.0.1");
                assertEquals(ATTEMPTS - perAddress, refused);

                // Another client, from another address: registers its key and commits.
                SigningKey key = SigningKey.generate();
                String apiKey = s.apiKey("default");
                try (RawHttps other = new RawHttps(s.port(), s.fingerprint(), InetAddress.getByName("127.0.0.2"))) {
                    assertEquals(201, other.send("POST", "/v1/clients/key", apiKey, "{\"publicKey\": \""
                            + key.publicKey().hex() + "\"}").status());
                    SignedTransaction stx = new TxnDraft(key, 0, System.currentTimeMillis())
                            .put(Bytes.utf8("k"), Bytes.utf8("v")).sign();
                    RawHttps.Response commit = other.send("POST", "/v1/tx/commit", apiKey, "{\"record\": \""
                            + Base64.getEncoder().encodeToString(stx.record()) + "\", \"waitPersisted\": true}");
                    assertEquals(200, commit.status(), commit.text());
                    assertTrue(commit.body().has("block"), commit.text());
                }
                // The liveness probe, on the management port, from the address that holds its share of the API's.
                Https probes = new Https(s.managementUrl(), s.fingerprint());
                assertEquals(200, probes.get("/actuator/health/liveness", null).status());
            } finally {
                for (SSLSocket c : held) {
                    c.close();
                }
            }
        }
    }
}
