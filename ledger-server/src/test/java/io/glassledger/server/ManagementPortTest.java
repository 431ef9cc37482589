package io.glassledger.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Health probes and metrics are served on the management port, over HTTPS with the API's certificate, behind the
 * same authorization: health is public, the Prometheus endpoint needs an auditor (or admin) key. The API port no
 * longer serves them (docs/API.md "Metrics").
 */
class ManagementPortTest {
    @TempDir
    static Path dir;
    static TestServer server;
    static Https management;
    static Https api;

    @BeforeAll
    static void start() throws Exception {
        server = new TestServer(dir.resolve("data"));
        // Pinned to the API's certificate: the management port serves the same one.
        management = new Https(server.managementUrl(), server.fingerprint());
        api = new Https(server.url(), server.fingerprint());
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void managementPort_isItsOwn_overHttpsWithTheApisCertificate() throws Exception {
        assertNotEquals(server.port(), server.managementPort());
        assertEquals(200, management.get("/actuator/health/liveness", null).status());
        assertEquals(200, management.get("/actuator/health/readiness", null).status());
    }

    @Test
    void prometheus_onTheManagementPort_refusesNoKeyAndAClientKey_admitsTheAuditorKey() throws Exception {
        ApiContractTest.problem(management.get("/actuator/prometheus", null), 401, "unauthenticated");
        ApiContractTest.problem(management.get("/actuator/prometheus", server.apiKey("default")), 403, "forbidden");
        Https.Response ok = management.get("/actuator/prometheus", server.apiKey("auditor"));
        assertEquals(200, ok.status());
        assertTrue(ok.text().contains("glassledger_connections_open{port=\"api\"}"), ok.text());
        assertTrue(ok.text().contains("glassledger_connections_open{port=\"management\"}"), ok.text());
        assertEquals(200, management.get("/actuator/prometheus", server.apiKey("admin")).status());
    }

    @Test
    void otherActuatorEndpointsAndTheApi_areNotOnTheManagementPort() throws Exception {
        String admin = server.apiKey("admin");
        ApiContractTest.problem(management.get("/actuator", admin), 403, "forbidden");  // the links page
        ApiContractTest.problem(management.get("/actuator/env", admin), 404, "not_found");  // not exposed
        ApiContractTest.problem(management.get("/v1/info", admin), 404, "not_found");
    }

    @Test
    void apiPort_servesNoProbesNorMetrics() throws Exception {
        ApiContractTest.problem(api.get("/actuator/health/liveness", null), 401, "unauthenticated");
        ApiContractTest.problem(api.get("/actuator/prometheus", server.apiKey("auditor")), 404, "not_found");
        assertEquals(200, api.get("/v1/info", server.apiKey("default")).status());
    }

    @Test
    void managementAddress_isTheApisByDefault() {
        assertEquals("127.0.0.1", server.bean(org.springframework.core.env.Environment.class)
                .getProperty("management.server.address"));
    }
}
