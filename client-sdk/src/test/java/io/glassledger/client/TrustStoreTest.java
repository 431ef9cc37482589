package io.glassledger.client;

import static io.glassledger.client.TestLedger.b;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.glassledger.verify.hash.Hash;
import io.glassledger.verify.proof.AppendOnlyProof;
import io.glassledger.verify.proof.Digest;
import io.glassledger.verify.proof.SignedHead;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TrustStoreTest {
    @TempDir
    Path dir;
    TestLedger l;

    @BeforeEach
    void ledger() {
        l = new TestLedger();
        for (int i = 1; i <= 5; i++) {
            int n = i;
            l.append(l.tx(d -> d.put(b("k" + n), b("v" + n))));
        }
    }

    private TrustStore storeAt(Path file, long block) {
        TrustStore s = TrustStore.open(file);
        s.initialize(l.trust(block));
        return s;
    }

    @Test
    void advance_writesFileAtomically_andReloads() throws IOException {
        Path file = dir.resolve("sub").resolve("state.json");
        TrustStore s = storeAt(file, 1);
        SignedHead h4 = l.head(4);
        assertEquals(TrustStore.Offer.ADVANCED, s.offer(l.ledger.digest(4), l.ledger.proveAppendOnly(1, 4), h4));

        TrustedState reloaded = TrustedState.load(file);
        assertEquals(l.ledger.digest(4), reloaded.digest());
        assertEquals(h4, reloaded.signedHead());
        assertEquals(l.server.publicKey(), reloaded.serverKey());
        assertEquals(reloaded, TrustStore.open(file).current());
        try (Stream<Path> files = Files.list(file.getParent())) {
            assertEquals(List.of("state.json", "state.json.lock"), files.map(p -> p.getFileName().toString()).sorted()
                    .toList(), "no temporary file is left behind");
        }
        String json = Files.readString(file, StandardCharsets.UTF_8);
        assertTrue(json.contains("\"format\" : \"glassledger-client-state/1\""), json);
    }

    @Test
    void advance_withoutProofFromTrusted_needsLink_andTrustStays() {
        TrustStore s = storeAt(null, 1);
        assertEquals(TrustStore.Offer.NEEDS_LINK, s.offer(l.ledger.digest(4), null, null));
        assertEquals(TrustStore.Offer.NEEDS_LINK, s.offer(l.ledger.digest(4), l.ledger.proveAppendOnly(2, 4), null));
        assertEquals(l.ledger.digest(1), s.current().digest());
    }

    @Test
    void olderDigest_neverMovesTrustBack() {
        TrustStore s = storeAt(null, 4);
        assertEquals(TrustStore.Offer.OLDER, s.offer(l.ledger.digest(2), null, l.head(2)));
        assertEquals(l.ledger.digest(4), s.current().digest());
    }

    @Test
    void fileAlreadyNewer_isLinkedAndAdopted_notOverwritten() throws IOException {
        Path file = dir.resolve("state.json");
        TrustStore behind = storeAt(file, 1);
        behind.linkWith(l.ledger::proveAppendOnly);
        TrustStore ahead = TrustStore.open(file);
        ahead.offer(l.ledger.digest(5), l.ledger.proveAppendOnly(1, 5), l.head(5));

        assertEquals(TrustStore.Offer.ADVANCED, behind.offer(l.ledger.digest(3), l.ledger.proveAppendOnly(1, 3), null));
        assertEquals(l.ledger.digest(5), behind.current().digest(), "linked 3 → 5, this process takes the file's trust");
        assertEquals(l.head(5), behind.current().signedHead());
        assertEquals(l.ledger.digest(5), TrustedState.load(file).digest(), "the file keeps the newer trust");
    }

    @Test
    void fileAheadOnAnotherHistory_isFork_andNeitherTrustMoves() throws IOException {
        Path file = dir.resolve("state.json");
        TrustStore behind = storeAt(file, 1);
        TestLedger other = new TestLedger();
        for (int i = 1; i <= 5; i++) {
            int n = i;
            other.append(other.tx(d -> d.put(b("k" + n), b("other" + n))));
        }
        // The server this process talks to can only prove its own history, which does not lead to the file's digest.
        behind.linkWith(other.ledger::proveAppendOnly);
        TrustStore ahead = TrustStore.open(file);
        ahead.offer(l.ledger.digest(5), l.ledger.proveAppendOnly(1, 5), l.head(5));

        IntegrityViolation v = assertThrows(IntegrityViolation.class,
                () -> behind.offer(l.ledger.digest(3), l.ledger.proveAppendOnly(1, 3), null));
        assertEquals(IntegrityViolation.Kind.FORK, v.kind());
        assertEquals(l.ledger.digest(5), v.evidence().trusted(), "evidence: the file's trust");
        assertEquals(l.ledger.digest(3), v.evidence().serverDigest(), "evidence: this process's digest");
        assertEquals(l.ledger.digest(1), behind.current().digest());
        assertEquals(l.ledger.digest(5), TrustedState.load(file).digest());
    }

    @Test
    void fileBehindOnAnotherHistory_isFork_andNotOverwritten() throws IOException {
        Path file = dir.resolve("state.json");
        TrustStore first = storeAt(file, 1);
        TrustStore second = TrustStore.open(file);
        first.offer(l.ledger.digest(2), l.ledger.proveAppendOnly(1, 2), null);
        // The second process never saw block 2 of the file's history; its server cannot link 2 to its own 4.
        second.linkWith((from, to) -> {
            throw IntegrityViolation.builder(IntegrityViolation.Kind.STALE_DIGEST, "no block " + from).build();
        });
        IntegrityViolation v = assertThrows(IntegrityViolation.class,
                () -> second.offer(l.ledger.digest(4), l.ledger.proveAppendOnly(1, 4), null));
        assertEquals(IntegrityViolation.Kind.FORK, v.kind());
        assertEquals(l.ledger.digest(2), TrustedState.load(file).digest(), "the file is not overwritten");
        assertEquals(l.ledger.digest(1), second.current().digest());
    }

    @Test
    void fileMovedByAnother_withoutAServerToLink_isFork() {
        Path file = dir.resolve("state.json");
        TrustStore first = storeAt(file, 1);
        TrustStore second = TrustStore.open(file);
        first.offer(l.ledger.digest(2), l.ledger.proveAppendOnly(1, 2), null);
        IntegrityViolation v = assertThrows(IntegrityViolation.class,
                () -> second.offer(l.ledger.digest(4), l.ledger.proveAppendOnly(1, 4), null));
        assertEquals(IntegrityViolation.Kind.FORK, v.kind());
    }

    @Test
    void sameBlockOtherHash_isFork() {
        TrustStore s = storeAt(null, 3);
        Digest forged = new Digest(3, Hash.of(new byte[32]));
        IntegrityViolation v = assertThrows(IntegrityViolation.class, () -> s.offer(forged, null, null));
        assertEquals(IntegrityViolation.Kind.FORK, v.kind());
        assertEquals(l.ledger.digest(3), v.evidence().trusted());
        assertEquals(forged, v.evidence().serverDigest());
        assertEquals(l.ledger.digest(3), s.current().digest());
    }

    @Test
    void badAppendOnlyProof_isFork_andNothingIsWritten() throws IOException {
        Path file = dir.resolve("state.json");
        TrustStore s = storeAt(file, 1);
        byte[] before = Files.readAllBytes(file);
        AppendOnlyProof p = l.ledger.proveAppendOnly(1, 4);
        Digest other = new Digest(4, l.ledger.digest(3).root());
        IntegrityViolation v = assertThrows(IntegrityViolation.class, () -> s.offer(other, p, null));
        assertEquals(IntegrityViolation.Kind.FORK, v.kind());
        assertTrue(v.evidence().appendOnlyProof() != null);
        assertEquals(l.ledger.digest(1), s.current().digest());
        assertEquals(new String(before, StandardCharsets.UTF_8), Files.readString(file));
    }

    @Test
    void fileRewrittenForAnotherServer_isIdentityViolation() throws IOException {
        Path file = dir.resolve("state.json");
        TrustStore s = storeAt(file, 2);
        TestLedger other = new TestLedger();
        other.append(other.tx(d -> d.put(b("x"), b("y"))));
        Files.write(file, other.trust(1).toJson(0));
        IntegrityViolation v = assertThrows(IntegrityViolation.class,
                () -> s.offer(l.ledger.digest(4), l.ledger.proveAppendOnly(2, 4), null));
        assertEquals(IntegrityViolation.Kind.SERVER_IDENTITY, v.kind());
        assertEquals(l.ledger.digest(2), s.current().digest());
    }

    @Test
    void sameDigest_recordsItsSignedHead() throws IOException {
        Path file = dir.resolve("state.json");
        TrustStore s = TrustStore.open(file);
        s.initialize(new TrustedState(l.server.publicKey(), TestLedger.SHARD, l.ledger.digest(3), l.head(2)));
        assertEquals(TrustStore.Offer.SAME, s.offer(l.ledger.digest(3), null, l.head(3)));
        assertEquals(l.head(3), TrustedState.load(file).signedHead());
    }

    @Test
    void load_rejectsTamperedSignature() throws IOException {
        Path file = dir.resolve("state.json");
        storeAt(file, 2);
        String json = Files.readString(file);
        String sig = l.head(2).signature().hex();
        String bad = (sig.charAt(0) == '0' ? "1" : "0") + sig.substring(1);
        Files.writeString(file, json.replace(sig, bad));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> TrustedState.load(file));
        assertTrue(e.getMessage().contains("invalid"), e.getMessage());
    }

    @Test
    void trustedState_rejectsHeadNewerThanDigest() {
        assertThrows(IllegalArgumentException.class, () -> new TrustedState(l.server.publicKey(), 0,
                l.ledger.digest(2), l.head(3)));
        assertNull(new TrustedState(l.server.publicKey(), 0, l.ledger.digest(2), null).signedHead());
    }
}
