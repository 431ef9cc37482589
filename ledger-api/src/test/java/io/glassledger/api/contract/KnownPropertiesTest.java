package io.glassledger.api.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class KnownPropertiesTest {
    private static final List<String> KNOWN = List.of("glassledger.data-dir", "glassledger.shard",
            "glassledger.limits.max-value-bytes", "glassledger.auditor.data-dir", "glassledger.cluster.peers");

    @Test
    void nearest_typo_isTheClosestName() {
        assertEquals("glassledger.data-dir", KnownProperties.nearest("glassledger.data-dri", KNOWN));
        assertEquals("glassledger.limits.max-value-bytes",
                KnownProperties.nearest("glassledger.limits.max-value-byte", KNOWN));
    }

    @Test
    void nearest_rightNameUnderAnotherParent_isFound() {
        List<String> auditor = List.of("glassledger.auditor.data-dir", "glassledger.auditor.poll-interval");
        assertEquals("glassledger.auditor.data-dir", KnownProperties.nearest("glassledger.data-dir", auditor));
    }

    @Test
    void nearest_nothingAlike_isNull() {
        assertNull(KnownProperties.nearest("glassledger.completely-different-thing", KNOWN));
    }

    @Test
    void distance_isLevenshtein() {
        assertEquals(0, KnownProperties.distance("abc", "abc"));
        assertEquals(2, KnownProperties.distance("data-dri", "data-dir"));
        assertEquals(3, KnownProperties.distance("kitten", "sitting"));
        assertEquals(4, KnownProperties.distance("", "abcd"));
    }

    @Test
    void refusal_namesEveryUnknownAndWhereItWasSet_ignoringOtherPrefixesAndListElements() {
        KnownProperties k = KnownProperties.load(getClass().getClassLoader(), "glassledger.");
        // no metadata in ledger-api itself: everything under the prefix is unknown here
        assertTrue(k.properties().isEmpty(), k.properties().toString());
        Optional<String> r = k.refusal("glassledger.", Map.of("glassledger.data-dri", "the command line",
                "server.port", "the command line", "glassledger.cluster.peers[0]", "application.yml"));
        assertTrue(r.isPresent());
        assertTrue(r.get().contains("unknown property glassledger.data-dri (set in the command line)"), r.get());
        assertTrue(r.get().contains("unknown property glassledger.cluster.peers (set in application.yml)"), r.get());
        assertTrue(!r.get().contains("server.port"), r.get());
        assertEquals(Optional.empty(), k.refusal("glassledger.", Map.of("server.port", "the command line")));
    }
}
