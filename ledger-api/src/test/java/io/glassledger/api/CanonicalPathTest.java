package io.glassledger.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class CanonicalPathTest {
    @Test
    void canonicalPaths_pass() {
        for (String p : List.of("/", "/v1/info", "/v1/tx/00ff/resolve", "/actuator/health/readiness",
                "/v3/api-docs", "/v3/api-docs.yaml", "/v1/clients/a.b_c-d~e", "/V1/ADMIN")) {
            assertEquals(java.util.Optional.empty(), CanonicalPath.violation(p), p);
        }
    }

    @Test
    void nonCanonicalPaths_areRefusedWithAReason() {
        for (String p : List.of("/v1/%61dmin/api-keys", "/v1;x=1/admin/api-keys", "/v1//admin", "//v1/info",
                "/v1/./admin", "/v1/x/../admin", "/v1/..", "/v1/.", "/v1/info/", "/v1\\admin", "/v1/%2e%2e/admin",
                "/v1/in fo", "/v1/info?", "/v1/info#", "/v1/a+b", "/v1/a:b", "/v1/a@b", "/v1/é", "", "v1/info",
                "/v1/tx/x/resolv%65", "/%61ctuator/prometheus")) {
            assertTrue(CanonicalPath.violation(p).isPresent(), p);
        }
        assertEquals("a percent-escape", CanonicalPath.violation("/v1/%61").orElseThrow());
        assertEquals("a ; parameter", CanonicalPath.violation("/v1;x=1/a").orElseThrow());
        assertEquals("a trailing slash", CanonicalPath.violation("/v1/").orElseThrow());
        assertEquals("an empty segment (//)", CanonicalPath.violation("/v1//a").orElseThrow());
        assertEquals("a dot segment (..)", CanonicalPath.violation("/v1/../a").orElseThrow());
        assertEquals("the character U+005C", CanonicalPath.violation("/v1\\a").orElseThrow());
    }
}
