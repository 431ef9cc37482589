package io.glassledger.image;

import com.github.dockerjava.api.model.Capability;
import io.glassledger.api.PinnedTrustManager;
import io.glassledger.api.SelfSignedCertificate;
import io.glassledger.server.testing.TestPorts;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.containers.BindMode;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.output.Slf4jLogConsumer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

/**
 * What the container tests share: the image (loaded from the build's tar), containers run locked down as a
 * Kubernetes pod of the chart would run them (read-only root, no capabilities, no privilege escalation, /tmp a tmpfs,
 * /data a host directory owned by 65532, secrets and TLS mounted read-only as files), TLS material and free ports.
 * Host networking (this machine's Docker has no bridge), every port on 127.0.0.1.
 */
final class Containers {
    private static final Logger LOG = LoggerFactory.getLogger(Containers.class);
    static final String IMAGE = System.getProperty("glassledger.image.name", "glassledger:0.1.0-SNAPSHOT");
    static final int UID = 65532;
    /** The first-start API keys the tests mount as a secret (config tree files named after their properties). */
    static final String ADMIN = "it-admin-key-0123456789abcdefghij";
    static final String CLIENT = "it-client-key-0123456789abcdefghij";
    static final String AUDITOR = "it-auditor-key-0123456789abcdefghij";

    static Map<String, String> firstStartKeys() {
        return Map.of("glassledger.auth.admin-key", ADMIN, "glassledger.auth.client-key", CLIENT,
                "glassledger.auth.auditor-key", AUDITOR);
    }

    private Containers() {
    }

    /**
     * Loads the image tar into Docker (once per JVM). Testcontainers 2.0 asks for Docker API 1.44 by default, which
     * Debian's docker.io (20.10, API 1.41) refuses: the API version is taken from the daemon when none is set.
     */
    static synchronized void loadImage() throws IOException, InterruptedException {
        if (System.getProperty("api.version") == null) {
            Process p = new ProcessBuilder("docker", "version", "--format", "{{.Server.APIVersion}}")
                    .redirectErrorStream(true).start();
            String v = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (p.waitFor() == 0 && v.matches("1\\.[0-9]+")) {
                System.setProperty("api.version", v);
            }
        }
        if (loaded) {
            return;
        }
        Path tar = Path.of(System.getProperty("glassledger.image.tar", "target/glassledger-image.tar"));
        // The docker CLI: docker-java's load streams the 280 MiB tar through its own transport, minutes here.
        Process p = new ProcessBuilder("docker", "load", "-q", "-i", tar.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        if (!p.waitFor(5, java.util.concurrent.TimeUnit.MINUTES) || p.exitValue() != 0) {
            throw new IllegalStateException("docker load -i " + tar + " failed: " + out);
        }
        loaded = true;
        LOG.info("loaded {} from {}", IMAGE, tar);
    }

    private static boolean loaded;

    /** A container of the image running {@code args}, locked down, its output logged with {@code name}. */
    @SuppressWarnings("resource")
    static GenericContainer<?> glassledger(String name, String... args) {
        return new GenericContainer<>(DockerImageName.parse(IMAGE))
                .withNetworkMode("host")
                .withCommand(args)
                .withTmpFs(Map.of("/tmp", "rw,exec,mode=1777"))
                .withEnv("SERVER_ADDRESS", "127.0.0.1")
                .withEnv("JAVA_TOOL_OPTIONS", "-Xmx384m -XX:TieredStopAtLevel=1 -Xss512k")
                .withCreateContainerCmdModifier(c -> c.withName("glassledger-it-" + name + "-" + ProcessHandle.current()
                        .pid()).getHostConfig().withReadonlyRootfs(true).withCapDrop(Capability.ALL)
                        .withSecurityOpts(List.of("no-new-privileges")))
                .withLogConsumer(new Slf4jLogConsumer(LoggerFactory.getLogger("container." + name)));
    }

    /** Waits for a server's or an auditor's "listening on" line, then for its readiness over HTTPS. */
    static GenericContainer<?> waitingUntilListening(GenericContainer<?> c) {
        return c.waitingFor(Wait.forLogMessage(".*listening on https://.*", 1)
                .withStartupTimeout(Duration.ofMinutes(4)));
    }

    /** A host directory the container's user owns (the volume a pod's fsGroup would make writable). */
    static Path ownedDirectory(Path dir) throws IOException {
        Files.createDirectories(dir);
        Files.setAttribute(dir, "unix:uid", UID);
        Files.setAttribute(dir, "unix:gid", UID);
        return dir;
    }

    /** A directory of files readable by the container's user, as a mounted Secret is (mode 0440, group 65532). */
    static Path secretDirectory(Path dir, Map<String, String> files) throws IOException {
        Files.createDirectories(dir);
        for (Map.Entry<String, String> f : files.entrySet()) {
            Path p = dir.resolve(f.getKey());
            Files.writeString(p, f.getValue(), StandardCharsets.UTF_8);
            Files.setAttribute(p, "unix:gid", UID);
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("r--r-----"));
        }
        return dir;
    }

    static GenericContainer<?> mountReadOnly(GenericContainer<?> c, Path host, String inContainer) {
        return c.withFileSystemBind(host.toString(), inContainer, BindMode.READ_ONLY);
    }

    static GenericContainer<?> mountData(GenericContainer<?> c, Path host) {
        return c.withFileSystemBind(host.toString(), "/data", BindMode.READ_WRITE);
    }

    /** A TLS certificate and key as PEM files {@code tls.crt} and {@code tls.key} (a Kubernetes TLS secret). */
    record Tls(Path dir, String pin) {
        static Tls make(Path dir) throws Exception {
            SelfSignedCertificate.Keystore ks = SelfSignedCertificate.loadOrCreate(dir.resolve("keystore"));
            KeyStore store = KeyStore.getInstance("PKCS12");
            try (InputStream in = Files.newInputStream(ks.path())) {
                store.load(in, ks.password().toCharArray());
            }
            X509Certificate cert = (X509Certificate) store.getCertificate(SelfSignedCertificate.ALIAS);
            PrivateKey key = (PrivateKey) store.getKey(SelfSignedCertificate.ALIAS, ks.password().toCharArray());
            Path tls = dir.resolve("tls");
            secretDirectory(tls, Map.of("tls.crt", pem("CERTIFICATE", cert.getEncoded()),
                    "tls.key", pem("PRIVATE KEY", key.getEncoded())));
            return new Tls(tls, PinnedTrustManager.fingerprint(cert));
        }

        private static String pem(String type, byte[] der) {
            return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, new byte[] {'\n'})
                    .encodeToString(der) + "\n-----END " + type + "-----\n";
        }

        /** Mounts it at /etc/glassledger/tls and points the service at it. */
        GenericContainer<?> mount(GenericContainer<?> c) {
            return mountReadOnly(c, dir, "/etc/glassledger/tls")
                    .withEnv("SERVER_SSL_CERTIFICATE", "/etc/glassledger/tls/tls.crt")
                    .withEnv("SERVER_SSL_CERTIFICATE_PRIVATE_KEY", "/etc/glassledger/tls/tls.key");
        }
    }

    /**
     * {@code n} ports for containers on the host's network: outside the kernel's ephemeral range and reserved against
     * other test JVMs ({@link TestPorts}).
     */
    static List<Integer> freePorts(int n) {
        return TestPorts.ports(n);
    }

    /** An HTTPS GET or POST pinned to {@code pin}: status and body. */
    static HttpResponse<String> https(String method, String url, String pin, String apiKey)
            throws IOException, InterruptedException {
        return https(method, url, pin, apiKey, "{}");
    }

    static HttpResponse<String> https(String method, String url, String pin, String apiKey, String body)
            throws IOException, InterruptedException {
        HttpClient http = HttpClient.newBuilder().sslContext(PinnedTrustManager.sslContext(pin))
                .connectTimeout(Duration.ofSeconds(5)).build();
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10));
        if (apiKey != null) {
            b.header("Authorization", "Bearer " + apiKey);
        }
        b.method(method, method.equals("POST") ? HttpRequest.BodyPublishers.ofString(body)
                : HttpRequest.BodyPublishers.noBody());
        if (method.equals("POST")) {
            b.header("Content-Type", "application/json");
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Whether the server's readiness probe says UP; {@code management} is its management port's base URL. */
    static boolean ready(String management, String pin) {
        try {
            return https("GET", management + "/actuator/health/readiness", pin, null).statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
