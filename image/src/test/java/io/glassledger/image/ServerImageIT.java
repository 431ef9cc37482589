package io.glassledger.image;

import static io.glassledger.image.Containers.ADMIN;
import static io.glassledger.image.Containers.AUDITOR;
import static io.glassledger.image.Containers.CLIENT;
import static io.glassledger.image.Containers.glassledger;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.glassledger.client.ClientConfig;
import io.glassledger.client.CommitPromise;
import io.glassledger.client.GlassLedgerClient;
import io.glassledger.verify.crypto.SigningKey;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.testcontainers.containers.Container;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.startupcheck.OneShotStartupCheckStrategy;

/**
 * The image as one server, run the way the chart runs it: TLS from a mounted PEM certificate, the first-start API
 * keys from a mounted secret (Spring's config tree), data on a volume, read-only root, no capabilities. The SDK
 * commits and verifies against it; ledger-cli runs from the same image; the keys' roles hold.
 */
class ServerImageIT {
    @TempDir
    Path dir;

    @BeforeAll
    static void image() throws Exception {
        Containers.loadImage();
    }

    @Test
    void version_isTheBuildsVersion() {
        try (GenericContainer<?> c = glassledger("version", "--version")
                .withStartupCheckStrategy(new OneShotStartupCheckStrategy().withTimeout(Duration.ofSeconds(60)))) {
            c.start();
            assertEquals("glassledger " + io.glassledger.api.Version.current(),
                    c.getLogs(org.testcontainers.containers.output.OutputFrame.OutputType.STDOUT).trim());
        }
    }

    @Test
    void server_withMountedTlsAndKeys_sdkCommitsAndVerifies_cliToo_rolesHold_asUid65532_withoutAShell()
            throws Exception {
        Containers.Tls tls = Containers.Tls.make(dir.resolve("pki"));
        Path secrets = Containers.secretDirectory(dir.resolve("secrets"), Containers.firstStartKeys());
        Path data = Containers.ownedDirectory(dir.resolve("data"));
        List<Integer> ports = Containers.freePorts(2);
        String url = "https://127.0.0.1:" + ports.get(0);
        String management = "https://127.0.0.1:" + ports.get(1);  // health probes and metrics
        GenericContainer<?> server = glassledger("server", "server").withEnv("SERVER_PORT", "" + ports.get(0))
                .withEnv("MANAGEMENT_SERVER_PORT", "" + ports.get(1));
        tls.mount(server);
        Containers.mountReadOnly(server, secrets, "/etc/glassledger/secrets");
        Containers.mountData(server, data);
        Containers.waitingUntilListening(server);
        try (server) {
            server.start();
            await().atMost(Duration.ofSeconds(60)).until(() -> Containers.ready(management, tls.pin()));

            SigningKey signer = SigningKey.generate();  // the identity 'default' keeps one signing key
            ClientConfig cfg = ClientConfig.builder().url(url).pinnedCertSha256(tls.pin()).apiKey(CLIENT)
                    .signingKey(signer).stateFile(dir.resolve("client.json"))
                    .verifyDelay(Duration.ofMillis(50)).build();
            try (GlassLedgerClient client = GlassLedgerClient.connect(cfg)) {
                List<CommitPromise> promises = new ArrayList<>();
                for (int i = 0; i < 40; i++) {
                    int n = i;
                    promises.add(client.runTransaction(t -> {
                        t.put("image-k" + n, "v" + n);
                        return null;
                    }).promise());
                }
                for (CommitPromise p : promises) {
                    p.verification().get(60, TimeUnit.SECONDS);
                }
                for (int i = 0; i < 40; i++) {
                    assertEquals("v" + i, client.get("image-k" + i));
                }
            }

            // ledger-cli from the same image, as an identity of its own (an identity keeps one signing key, and the
            // SDK above registered its key for 'default'): the admin makes its API key, it commits a key and waits
            // for its promise to verify (exit 0).
            var made = Containers.https("POST", url + "/v1/admin/api-keys", tls.pin(), ADMIN,
                    "{\"clientId\":\"cli\",\"role\":\"client\"}");
            assertEquals(2, made.statusCode() / 100, made.body());
            String cliKey = new com.fasterxml.jackson.databind.ObjectMapper().readTree(made.body()).get("apiKey")
                    .asText();
            Path cliData = Containers.ownedDirectory(dir.resolve("cli"));
            GenericContainer<?> cli = glassledger("cli", "cli", "--url", url, "--pin", tls.pin(), "--api-key", cliKey,
                    "put", "from-the-cli", "hello")
                    .withStartupCheckStrategy(new OneShotStartupCheckStrategy().withTimeout(Duration.ofSeconds(90)));
            Containers.mountData(cli, cliData);
            try (cli) {
                cli.start();  // a one-shot container that exits non-zero fails to start
            }
            try (GlassLedgerClient client = GlassLedgerClient.connect(ClientConfig.builder().url(url)
                    .pinnedCertSha256(tls.pin()).apiKey(CLIENT).signingKey(signer)
                    .stateFile(dir.resolve("client2.json")).build())) {
                assertEquals("hello", client.get("from-the-cli"));
            }

            // The configured keys hold their roles: only the admin key lists API keys; no key, no answer.
            assertEquals(200, Containers.https("GET", url + "/v1/admin/api-keys", tls.pin(), ADMIN).statusCode());
            assertEquals(403, Containers.https("GET", url + "/v1/admin/api-keys", tls.pin(), CLIENT).statusCode());
            assertEquals(403, Containers.https("GET", url + "/v1/admin/api-keys", tls.pin(), AUDITOR).statusCode());
            assertEquals(401, Containers.https("GET", url + "/v1/admin/api-keys", tls.pin(), null).statusCode());

            // No shell in the image: an exec of sh fails.
            Container.ExecResult sh;
            try {
                sh = server.execInContainer("sh", "-c", "true");
                assertNotEquals(0, sh.getExitCode(), "sh ran in the image: " + sh);
            } catch (RuntimeException expected) {
                // docker refuses to start an executable that is not there
            }
        }
        // Everything the server wrote is on the volume, owned by 65532 (the image's non-root user); the keys came
        // from the secret, so no credentials file repeats them; no log file (logs go to stdout).
        try (Stream<Path> files = Files.walk(data)) {
            for (Path f : files.toList()) {
                assertEquals(Containers.UID, Files.getAttribute(f, "unix:uid"), f + " is not owned by 65532");
            }
        }
        assertTrue(Files.exists(data.resolve("auth").resolve("api-keys.json")));
        assertFalse(Files.exists(data.resolve("credentials.txt")), "configured keys are not copied to the volume");
        assertFalse(Files.exists(data.resolve("logs")), "logs go to stdout, not to a file");
        assertFalse(Files.readString(data.resolve("auth").resolve("api-keys.json")).contains(ADMIN));
    }
}
