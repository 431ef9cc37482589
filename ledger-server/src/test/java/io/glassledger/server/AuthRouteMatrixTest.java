package io.glassledger.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every route × every role × many spellings of its path, against the roles table of docs/API.md ("Roles by
 * route"), over one raw kept-alive HTTPS connection (so {@code //}, dot segments and backslashes reach the server as
 * written). The canonical spelling must give exactly the table's roles; every other spelling must be refused before
 * any handler runs, which the dangerous routes prove by their side effects (no key minted, no abort recorded, no
 * metrics served). The issue's attacks are named regression tests. The actuator's routes are tried on the
 * management port, which alone serves them, with the same filter.
 */
class AuthRouteMatrixTest {
    static final List<String> ROLES = List.of("none", "client", "auditor", "admin", "peer");
    static final String PEER_KEY = "peer-" + HexFormat.of().formatHex(new java.security.SecureRandom().generateSeed(16));
    /** Resolved by the canonical spelling with an allowed role: proves the side-effect check can see a resolve. */
    static final String TX_OK = "0123456789abcdef0123456789abcdef";
    /** Used by every non-canonical spelling: no decision may ever be recorded for it. */
    static final String TX_ATTACK = "fedcba9876543210fedcba9876543210";
    static final Pattern ROW = Pattern.compile("^\\| `(GET|POST)` \\| `(/[^`]*)` \\| ([a-z, ]+) \\|$");

    @TempDir
    static Path dir;
    static TestServer server;
    static RawHttps http;
    /** The management port: health probes and metrics. */
    static RawHttps management;
    static final Map<String, String> KEYS = new LinkedHashMap<>();
    static final ObjectMapper JSON = new ObjectMapper();

    record Route(String method, String template, Set<String> roles) {
        boolean isPublic() {
            return roles.contains("public");
        }

        /** Served on the management port only. */
        boolean actuator() {
            return template.startsWith("/actuator");
        }

        String path(String txId) {
            return template.replace("{txId}", txId).replace("{clientId}", "default").replace("{number}", "0");
        }

        /** Indices (0-based, after the leading /) of the segments that are a template variable. */
        Set<Integer> variables() {
            Set<Integer> out = new TreeSet<>();
            String[] s = template.substring(1).split("/");
            for (int i = 0; i < s.length; i++) {
                if (s[i].startsWith("{")) {
                    out.add(i);
                }
            }
            return out;
        }
    }

    record Spelling(String kind, String target) {
    }

    @BeforeAll
    static void start() throws Exception {
        server = new TestServer(dir.resolve("data"), "--glassledger.cluster.peer-key=" + PEER_KEY);
        http = new RawHttps(server.port(), server.fingerprint());
        management = new RawHttps(server.managementPort(), server.fingerprint());
        KEYS.put("none", null);
        KEYS.put("client", server.apiKey("default"));
        KEYS.put("auditor", server.apiKey("auditor"));
        KEYS.put("admin", server.apiKey("admin"));
        KEYS.put("peer", PEER_KEY);
    }

    @AfterAll
    static void stop() {
        if (http != null) {
            http.close();
            management.close();
        }
        server.close();
    }

    /** The roles table of docs/API.md, "Roles by route". */
    static List<Route> table() throws Exception {
        List<Route> out = new ArrayList<>();
        for (String line : Files.readAllLines(Path.of("..", "docs", "API.md"))) {
            Matcher m = ROW.matcher(line.trim());
            if (m.matches()) {
                Set<String> roles = new TreeSet<>();
                for (String r : m.group(3).split(",")) {
                    roles.add(r.trim());
                }
                out.add(new Route(m.group(1), m.group(2), roles));
            }
        }
        assertTrue(out.size() > 20, "docs/API.md has the roles table: " + out);
        return out;
    }

    @Test
    void rolesTable_listsExactlyTheRoutesOfTheOpenApiDocument() throws Exception {
        RawHttps.Response r = http.send("GET", "/v3/api-docs", null, null);
        assertEquals(200, r.status(), r.text());
        Set<String> served = new TreeSet<>();
        r.body().get("paths").fields().forEachRemaining(p -> p.getValue().fieldNames()
                .forEachRemaining(m -> served.add(m.toUpperCase(Locale.ROOT) + " " + p.getKey())));
        Set<String> documented = new TreeSet<>();
        for (Route route : table()) {
            if (route.template().startsWith("/v1/")) {
                documented.add(route.method() + " " + route.template());
            }
        }
        assertEquals(served, documented);
    }

    @Test
    void everyRouteRoleAndSpelling_isDecidedAsTheRolesTableSays() throws Exception {
        long t0 = System.nanoTime();
        int before = adminKeys();
        List<String> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        java.util.concurrent.atomic.AtomicInteger requests = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger refusedCanonical = new java.util.concurrent.atomic.AtomicInteger();
        // Routes in parallel on a few kept-alive connections (one per thread): requests wait on the network and
        // the server, not on this machine's cores. Each route's requests stay in order on one connection.
        int threads = 4;
        List<RawHttps> clients = java.util.Collections.synchronizedList(new ArrayList<>());
        ThreadLocal<RawHttps> client = connections(server.port(), clients);
        ThreadLocal<RawHttps> managementClient = connections(server.managementPort(), clients);
        var pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
        try {
            List<java.util.concurrent.Future<?>> done = new ArrayList<>();
            for (Route route : table()) {
                done.add(pool.submit(() -> {
                    check(route, route.actuator() ? managementClient.get() : client.get(), failures, requests,
                            refusedCanonical);
                    return null;
                }));
            }
            for (var f : done) {
                f.get(5, java.util.concurrent.TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
            clients.forEach(RawHttps::close);
        }
        long ms = (System.nanoTime() - t0) / 1_000_000;
        System.out.printf("AuthRouteMatrixTest: %d requests (%d refused by role on canonical paths) in %d ms on "
                + "%d threads%n", requests.get(), refusedCanonical.get(), ms, threads);
        assertTrue(failures.isEmpty(), failures.size() + " failures, e.g.:\n" + String.join("\n",
                failures.subList(0, Math.min(40, failures.size()))));
        // Side effects: the canonical admin request made one client key; no spelling made an admin key or
        // recorded a decision for TX_ATTACK; the canonical resolve did record one for TX_OK.
        assertEquals(before, adminKeys(), "admin keys");
        assertFalse(keysFile().contains("\"evil\""), keysFile());
        assertTxUnknown(TX_ATTACK);
        RawHttps.Response ok = http.send("GET", "/v1/tx/" + TX_OK, KEYS.get("admin"), null);
        assertEquals(200, ok.status(), ok.text());
        assertEquals("ABORTED", ok.body().get("state").asText(), ok.text());
    }

    /** A kept-alive connection to {@code port} per thread, each added to {@code all}. */
    private static ThreadLocal<RawHttps> connections(int port, List<RawHttps> all) {
        return ThreadLocal.withInitial(() -> {
            try {
                RawHttps c = new RawHttps(port, server.fingerprint());
                all.add(c);
                return c;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /** The canonical spelling with every role, then the other spellings; failures are added to {@code failures}. */
    static void check(Route route, RawHttps http, List<String> failures, java.util.concurrent.atomic.AtomicInteger
            requests, java.util.concurrent.atomic.AtomicInteger refusedCanonical) throws Exception {
        boolean dangerous = route.template().endsWith("/resolve") || route.template().startsWith("/v1/admin/")
                || route.template().equals("/actuator/prometheus");
        for (String role : ROLES) {
            RawHttps.Response r = http.send(route.method(), route.path(TX_OK), KEYS.get(role), body(route, false));
            requests.incrementAndGet();
            String outcome = route.method() + " " + route.path(TX_OK) + " as " + role + ": " + r.status() + " "
                    + r.code();
            if (route.isPublic() || route.roles().contains(role)) {
                if (r.status() == 401 || r.status() == 403 || "not_found".equals(r.code())
                        || (route.isPublic() && r.status() != 200)) {
                    failures.add("allowed but refused: " + outcome);
                }
            } else {
                refusedCanonical.incrementAndGet();
                boolean ok = role.equals("none") ? r.status() == 401 && "unauthenticated".equals(r.code())
                        : r.status() == 403 && "forbidden".equals(r.code());
                if (!ok) {
                    failures.add("not allowed but answered: " + outcome);
                }
            }
        }
        int turn = 0;
        for (Spelling s : spellings(route.path(TX_ATTACK), route.variables(), dangerous)) {
            // Bounded: a dangerous route gets every role with every spelling; any other, the attacker's role
            // (client) and one of the other four in turn.
            String other = List.of("none", "auditor", "admin", "peer").get(turn++ % 4);
            for (String role : dangerous ? ROLES : List.of("client", other)) {
                RawHttps.Response r = http.send(route.method(), s.target(), KEYS.get(role), body(route, true));
                requests.incrementAndGet();
                if (!refused(s, role, r)) {
                    failures.add(s.kind() + " spelling not refused: " + route.method() + " " + s.target()
                            + " as " + role + ": " + r.status() + " " + r.code() + " " + r.text().substring(0,
                            Math.min(120, r.text().length())));
                }
                if (route.template().equals("/actuator/prometheus") && r.text().contains("# HELP")) {
                    failures.add("metrics served to " + s.target() + " as " + role);
                }
            }
        }
    }

    /**
     * A non-canonical spelling: 400 {@code non_canonical_path}, or, for a backslash, Reactor Netty's own 400 (it
     * cannot parse the request target at all). A case change is a canonical path of another route or of none: 401
     * or 403 as that route says, 404, or 405 where it matches a route with another method (as
     * {@code /v1/clients/KEY} matches {@code GET /v1/clients/{clientId}}); never the handler of the original route
     * (whose answer to these bodies would be 400 {@code malformed}, or 2xx).
     */
    static boolean refused(Spelling s, String role, RawHttps.Response r) {
        return switch (s.kind()) {
            case "case" -> r.status() == 401 || r.status() == 403 || r.status() == 404 || r.status() == 405;
            case "backslash" -> r.status() == 400;
            default -> r.status() == 400 && "non_canonical_path".equals(r.code());
        };
    }

    /** Bodies that pass authorization and then fail validation, except the two that must show an effect. */
    static String body(Route route, boolean attack) {
        if (!route.method().equals("POST")) {
            return null;
        }
        if (route.template().equals("/v1/admin/api-keys")) {
            return attack ? "{\"clientId\":\"evil\",\"role\":\"admin\"}" : "{\"clientId\":\"matrix\",\"role\":\"client\"}";
        }
        return "{}";
    }

    /**
     * Spellings of {@code path} that are not it: a percent-escape of a letter (every letter if {@code everyLetter},
     * else the first of each segment), an escaped slash or dot segment, {@code ;x=1} on each segment, case changes
     * of each literal segment, a doubled slash, {@code /./} and {@code /x/../} before each segment, a trailing
     * slash and a backslash.
     */
    static List<Spelling> spellings(String path, Set<Integer> variables, boolean everyLetter) {
        String[] seg = path.substring(1).split("/");
        List<Spelling> out = new ArrayList<>();
        for (int i = 0; i < seg.length; i++) {
            String s = seg[i];
            int escaped = 0;
            for (int j = 0; j < s.length(); j++) {
                char c = s.charAt(j);
                if (Character.isLetter(c) && (everyLetter || escaped == 0)) {
                    String hex = String.format(j % 2 == 0 ? "%%%02x" : "%%%02X", (int) c);
                    out.add(new Spelling("percent", join(seg, i, s.substring(0, j) + hex + s.substring(j + 1))));
                    escaped++;
                }
            }
            out.add(new Spelling("matrix", join(seg, i, s + ";x=1")));
            if (!variables.contains(i)) {
                String upper = s.toUpperCase(Locale.ROOT);
                String capital = Character.toUpperCase(s.charAt(0)) + s.substring(1);
                if (!upper.equals(s)) {
                    out.add(new Spelling("case", join(seg, i, upper)));
                }
                if (!capital.equals(s) && !capital.equals(upper)) {
                    out.add(new Spelling("case", join(seg, i, capital)));
                }
            }
            out.add(new Spelling("slash", join(seg, i, "/" + s)));
            out.add(new Spelling("dot", join(seg, i, "./" + s)));
            out.add(new Spelling("dot", join(seg, i, "x/../" + s)));
            out.add(new Spelling("percent", join(seg, i, "%2e/" + s)));
            if (i > 0) {
                out.add(new Spelling("percent", join(seg, i - 1, seg[i - 1] + "%2F" + s, i)));
            }
        }
        out.add(new Spelling("trailing", path + "/"));
        int last = path.lastIndexOf('/');
        out.add(new Spelling("backslash", path.substring(0, last) + "\\" + path.substring(last + 1)));
        return out;
    }

    private static String join(String[] seg, int i, String replacement) {
        return join(seg, i, replacement, -1);
    }

    /** The path with segment {@code i} replaced, and segment {@code skip} (if any) left out. */
    private static String join(String[] seg, int i, String replacement, int skip) {
        StringBuilder b = new StringBuilder();
        for (int k = 0; k < seg.length; k++) {
            if (k == skip) {
                continue;
            }
            b.append('/').append(k == i ? replacement : seg[k]);
        }
        return b.toString();
    }

    // --- the attacks of issue 15, each with the side effect it had

    @Test
    void issue15_percentEncodedAdminPath_mintsNoAdminKey() throws Exception {
        assertNoAdminKeyMintedBy("/v1/%61dmin/api-keys");
    }

    @Test
    void issue15_matrixParameter_mintsNoAdminKey() throws Exception {
        assertNoAdminKeyMintedBy("/v1;x=1/admin/api-keys");
    }

    @Test
    void issue15_percentEncodedResolve_recordsNoAbort() throws Exception {
        String tx = "00112233445566778899aabbccddeeff";
        RawHttps.Response r = http.send("POST", "/v1/tx/" + tx + "/resolv%65", KEYS.get("client"), "{}");
        assertProblem(r, 400, "non_canonical_path");
        assertTxUnknown(tx);
    }

    @Test
    void issue15_percentEncodedActuator_servesNoMetrics() throws Exception {
        RawHttps.Response r = management.send("GET", "/%61ctuator/prometheus", KEYS.get("client"), null);
        assertProblem(r, 400, "non_canonical_path");
        assertFalse(r.text().contains("# HELP"));
        assertProblem(management.send("GET", "/actuator/prometheus", KEYS.get("client"), null), 403, "forbidden");
    }

    @Test
    void apiPort_servesNoActuatorRoute() throws Exception {
        for (String path : List.of("/actuator", "/actuator/health", "/actuator/health/liveness",
                "/actuator/prometheus")) {
            assertProblem(http.send("GET", path, null, null), 401, "unauthenticated");
            assertProblem(http.send("GET", path, KEYS.get("admin"), null), 404, "not_found");
        }
    }

    private void assertNoAdminKeyMintedBy(String target) throws Exception {
        int before = adminKeys();
        RawHttps.Response r = http.send("POST", target, KEYS.get("client"), "{\"clientId\":\"evil\",\"role\":\"admin\"}");
        assertProblem(r, 400, "non_canonical_path");
        assertEquals(before, adminKeys());
        assertFalse(keysFile().contains("\"evil\""));
    }

    // --- what is neither a route nor public

    @Test
    void unknownPath_is401WithoutAKeyAnd404WithOne() throws Exception {
        assertProblem(http.send("GET", "/v1/nothing-here", null, null), 401, "unauthenticated");
        assertProblem(http.send("GET", "/v1/nothing-here", KEYS.get("client"), null), 404, "not_found");
        assertProblem(http.send("GET", "/", KEYS.get("admin"), null), 404, "not_found");
        assertProblem(http.send("GET", "/index.html", KEYS.get("admin"), null), 404, "not_found");
    }

    @Test
    void wrongMethod_isAnsweredOnlyAfterAuthentication() throws Exception {
        assertProblem(http.send("GET", "/v1/admin/api-keys/revoke", null, null), 401, "unauthenticated");
        assertEquals(405, http.send("GET", "/v1/admin/api-keys/revoke", KEYS.get("client"), null).status());
    }

    @Test
    void undeclaredActuatorHandlers_areDeniedToEveryRole() throws Exception {
        for (String role : ROLES) {
            RawHttps.Response links = management.send("GET", "/actuator", KEYS.get(role), null);
            assertEquals(role.equals("none") ? 401 : 403, links.status(), role + ": " + links.text());
            RawHttps.Response env = management.send("GET", "/actuator/env", KEYS.get(role), null);
            assertTrue(env.status() == (role.equals("none") ? 401 : 404) || env.status() == 403,
                    role + ": " + env.status() + " " + env.text());
        }
    }

    @Test
    void queryStrings_doNotChangeTheRoute() throws Exception {
        // The query is not part of the path: a client key with ?x=/admin is still on /v1/info.
        assertEquals(200, http.send("GET", "/v1/info?x=/v1/admin/api-keys", KEYS.get("client"), null).status());
        assertProblem(http.send("POST", "/v1/admin/api-keys?x=1", KEYS.get("client"),
                "{\"clientId\":\"evil\",\"role\":\"admin\"}"), 403, "forbidden");
    }

    static void assertProblem(RawHttps.Response r, int status, String code) {
        assertEquals(status, r.status(), r.text());
        assertTrue(r.contentType().startsWith("application/problem+json"), r.contentType());
        assertEquals(code, r.code(), r.text());
    }

    /** No decision was ever recorded for {@code tx}. */
    static void assertTxUnknown(String tx) throws Exception {
        RawHttps.Response r = http.send("GET", "/v1/tx/" + tx, KEYS.get("admin"), null);
        assertEquals(200, r.status(), r.text());
        assertEquals("UNKNOWN", r.body().get("state").asText(), r.text());
    }

    static String keysFile() throws Exception {
        return Files.readString(server.dataDir.resolve("auth").resolve("api-keys.json"));
    }

    static int adminKeys() throws Exception {
        int n = 0;
        for (JsonNode e : JSON.readTree(keysFile())) {
            n += e.get("role").asText().equals("admin") ? 1 : 0;
        }
        return n;
    }
}
