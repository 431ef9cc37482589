package io.glassledger.client.cli;

import io.glassledger.client.ClientConfig;
import io.glassledger.verify.crypto.SigningKey;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Where to connect, resolved once from the command line, the environment and a cluster file, with one rule a user
 * can predict: <b>a flag overrides its environment variable</b> ({@code --pin} over {@code GLASSLEDGER_PIN}), and
 * <b>a cluster file's URLs and pin must agree with any URL or pin given besides</b> (by flag or environment): a
 * contradiction is refused before anything is sent, naming both sources, instead of failing later with a TLS error
 * (issue 17, item 3: an exported {@code GLASSLEDGER_PIN} of a single server beside {@code --cluster}).
 */
final class Settings {
    static final String DEFAULT_URL = "https://127.0.0.1:8443";

    /** A value and where it came from ("--pin", "GLASSLEDGER_PIN (environment)", the cluster file). */
    record Sourced(String value, String source) {
    }

    final URI url;
    final Sourced apiKey;
    /** The pin to use, or null (the JDK's trust); its source for messages. */
    final Sourced pin;
    /** The cluster file, absolute, or null. */
    final Path cluster;
    final Path keyFile;
    final Path stateFile;
    /** The cluster's shard URLs, or just {@link #url}. */
    final List<URI> shards;

    private Settings(URI url, Sourced apiKey, Sourced pin, Path cluster, Path keyFile, Path stateFile,
                     List<URI> shards) {
        this.url = url;
        this.apiKey = apiKey;
        this.pin = pin;
        this.cluster = cluster;
        this.keyFile = keyFile;
        this.stateFile = stateFile;
        this.shards = shards;
    }

    static Settings resolve(Args args, Map<String, String> env) {
        Sourced urlGiven = setting(args, env, "--url", "GLASSLEDGER_URL");
        Sourced pinGiven = setting(args, env, "--pin", "GLASSLEDGER_PIN");
        Sourced clusterGiven = setting(args, env, "--cluster", "GLASSLEDGER_CLUSTER");
        Sourced apiKey = setting(args, env, "--api-key", "GLASSLEDGER_API_KEY");
        Path home = Path.of(System.getProperty("user.home"), ".glassledger");
        Path keyFile = args.has("--key-file") ? Path.of(args.opt("--key-file")) : home.resolve("client.key");
        Path explicitState = args.has("--state") ? Path.of(args.opt("--state")) : null;
        if (pinGiven != null) {
            try {
                ClientConfig.normalizeFingerprint(pinGiven.value());
            } catch (IllegalArgumentException e) {
                throw new Usage(pinGiven.source() + ": " + e.getMessage());
            }
        }
        if (clusterGiven == null) {
            URI url;
            try {
                url = URI.create(urlGiven == null ? DEFAULT_URL : urlGiven.value());
            } catch (IllegalArgumentException e) {
                throw new Usage(urlGiven.source() + " is not a URL: " + urlGiven.value());
            }
            if (url.getHost() == null || !"https".equals(url.getScheme())) {
                throw new Usage((urlGiven == null ? "the default URL" : urlGiven.source()) + " must be https://HOST:PORT, got " + url);
            }
            int port = url.getPort() > 0 ? url.getPort() : 443;
            Path state = explicitState != null ? explicitState
                    : home.resolve("state-" + safe(url.getHost()) + "-" + port + ".json");
            return new Settings(url, apiKey, pinGiven, null, keyFile, state, List.of(url));
        }
        Path file = Path.of(clusterGiven.value()).toAbsolutePath().normalize();
        ClientConfig fromFile;
        try {
            fromFile = ClientConfig.builder().clusterFile(file).apiKey("unused").signingKey(SigningKey.generate())
                    .build();
        } catch (RuntimeException e) {
            throw new Usage("cluster file " + file + " (" + clusterGiven.source() + "): " + e.getMessage());
        }
        String fileSource = "the cluster file " + file + " (" + clusterGiven.source() + ")";
        String filePin = fromFile.pinnedCertSha256();
        // A cluster file with no pin (e.g. the Helm chart's ConfigMap) takes the pin given beside it.
        if (pinGiven != null && filePin != null
                && !ClientConfig.normalizeFingerprint(pinGiven.value()).equals(filePin)) {
            throw new Usage("contradicting pins: " + pinGiven.source() + " is " + pinGiven.value() + ", but "
                    + fileSource + " pins " + filePin + ". Unset or correct "
                    + pinGiven.source().replace(" (environment)", "") + "; the cluster file's pin is used when no "
                    + "other is given");
        }
        if (urlGiven != null && !fromFile.shards().contains(URI.create(urlGiven.value()))) {
            throw new Usage("contradicting servers: " + urlGiven.source() + " is " + urlGiven.value()
                    + ", which is not one of the shards of " + fileSource + " " + fromFile.shards() + ". Give "
                    + "either, not both (unset GLASSLEDGER_URL when using --cluster)");
        }
        URI first = fromFile.shards().get(0);
        Path state = explicitState != null ? explicitState
                : home.resolve("state-cluster-" + safe(first.getHost()) + "-" + first.getPort() + ".json");
        Sourced pin = filePin == null ? pinGiven : new Sourced(filePin, fileSource);
        return new Settings(first, apiKey, pin, file, keyFile, state, fromFile.shards());
    }

    private static Sourced setting(Args args, Map<String, String> env, String option, String envName) {
        String v = args.opt(option);
        if (v != null && !v.isEmpty()) {
            return new Sourced(v, option);
        }
        v = env.get(envName);
        return v == null || v.isEmpty() ? null : new Sourced(v, envName + " (environment)");
    }

    private static String safe(String host) {
        return host.replaceAll("[^A-Za-z0-9.-]", "_");
    }

    String requireApiKey() {
        if (apiKey == null) {
            throw new Usage("no API key: give --api-key or set GLASSLEDGER_API_KEY (the server's first keys are in "
                    + "<data>/credentials.txt)");
        }
        return apiKey.value();
    }

    /** The SDK's configuration for these settings, with the given violation handler. */
    ClientConfig.Builder config() {
        ClientConfig.Builder b = ClientConfig.builder().apiKey(requireApiKey()).keyFile(keyFile).stateFile(stateFile);
        if (cluster != null) {
            b.clusterFile(cluster);
        } else {
            b.url(url);
        }
        if (pin != null) {
            b.pinnedCertSha256(pin.value());
        }
        return b;
    }

    /** Every state file these settings use: one, or one per shard of a cluster. */
    List<Path> stateFiles() {
        ClientConfig c = ClientConfig.builder().shards(shards).apiKey("unused").signingKey(SigningKey.generate())
                .stateFile(stateFile).build();
        return java.util.stream.IntStream.range(0, shards.size()).mapToObj(c::stateFile).toList();
    }
}
