package io.glassledger.examples;

// README: begin (README.md, "Use it from Java", quotes from here to "README: end"; ReadmeSnippetTest keeps them equal)
import io.glassledger.client.ClientConfig;
import io.glassledger.client.CommitPromise;
import io.glassledger.client.GlassLedgerClient;
import java.nio.file.Path;
import java.time.Duration;

public final class TransferExample {
    public static void main(String[] args) {
        String url = System.getenv().getOrDefault("GLASSLEDGER_URL", "https://127.0.0.1:8443");
        String pin = System.getenv("GLASSLEDGER_PIN");             // the fingerprint the server printed
        String apiKey = System.getenv("EXAMPLE_API_KEY");          // the key of the identity `example`
        try (GlassLedgerClient c = GlassLedgerClient.connect(ClientConfig.builder()
                .url(url).apiKey(apiKey).pinnedCertSha256(pin)
                .keyFile(Path.of("example.key"))                    // this identity's Ed25519 key, made on first use
                .stateFile(Path.of("example-state.json"))           // the digest this client trusts
                .verifyDelay(Duration.ofMillis(100))                // deferred verification; 0 = before commit returns
                .violationHandler(v -> System.err.println("INTEGRITY VIOLATION: " + v.getMessage()))
                .build())) {
            CommitPromise p = c.runTransaction(t -> {
                String alice = t.get("alice");                      // null until someone writes it
                String bob = t.get("bob");
                int a = alice == null ? 100 : Integer.parseInt(alice);
                int b = bob == null ? 0 : Integer.parseInt(bob);
                t.put("alice", Integer.toString(a - 10)).put("bob", Integer.toString(b + 10));
                return null;
            }).promise();
            p.verification().join();                                // reads and writes proven, or IntegrityViolation
            System.out.println("alice=" + c.get("alice") + " bob=" + c.get("bob")
                    + " (verified, block " + p.block() + ")");     // get: a verified current value
        }
    }
}
// README: end
