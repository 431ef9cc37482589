package io.glassledger.client.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.glassledger.api.Wire;
import io.glassledger.verify.crypto.SigningKey;
import io.glassledger.verify.hash.Hash;
import io.glassledger.verify.proof.Digest;
import io.glassledger.verify.proof.SignedHead;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ledger-cli evidence}: two heads one key signed for one block with two roots prove a fork; nothing else
 * does. Every single hex digit changed in either head, a head of another block, another shard or another key, and
 * a pinned key that is not the signer's, all leave it unproven.
 */
class LedgerCliEvidenceTest {
    @TempDir
    Path dir;
    final ObjectMapper json = new ObjectMapper();
    final SigningKey server = SigningKey.generate();
    String out;

    SignedHead head(SigningKey k, int shard, long block, int rootByte) {
        byte[] root = new byte[32];
        root[0] = (byte) rootByte;
        return SignedHead.sign(k, shard, new Digest(block, Hash.of(root)), 1_000 + block);
    }

    Path file(SignedHead a, SignedHead b) throws IOException {
        Map<String, Object> ev = new LinkedHashMap<>();
        ev.put("peerSignedHead", Wire.signedHead(a));
        ev.put("shardSignedHead", Wire.signedHead(b));
        return write(Map.of("shard", a.shard(), "block", a.digest().blockNo(), "kind", "fork", "detail", "test",
                "evidence", ev));
    }

    Path write(Object violation) throws IOException {
        Path f = dir.resolve("v.json");
        Files.write(f, json.writeValueAsBytes(violation));
        return f;
    }

    int run(String... args) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        PrintStream ps = new PrintStream(o, true, StandardCharsets.UTF_8);
        int rc = LedgerCli.run(args, ps, ps, Map.of());
        out = o.toString(StandardCharsets.UTF_8);
        return rc;
    }

    @Test
    void twoRootsForOneBlockUnderOneKeyProveAFork() throws IOException {
        Path f = file(head(server, 2, 7, 1), head(server, 2, 7, 2));
        assertEquals(0, run("evidence", f.toString()), out);
        assertTrue(out.contains("FORK PROVEN"), out);
        assertEquals(0, run("evidence", f.toString(), "--server-key", server.publicKey().hex()), out);
    }

    @Test
    void aForkFoundByGossip_namesTheReportingAuditorBySignature() throws IOException {
        SignedHead peer = head(server, 2, 7, 1);
        SigningKey auditor = SigningKey.generate();
        var gossip = io.glassledger.api.SignedGossip.sign(auditor, "auditor-b", 5_000, java.util.List.of(peer));
        Map<String, Object> ev = new LinkedHashMap<>();
        ev.put("peerSignedHead", Wire.signedHead(peer));
        ev.put("shardSignedHead", Wire.signedHead(head(server, 2, 7, 2)));
        ev.put("peerGossip", gossip);
        Path f = write(Map.of("shard", 2, "block", 7, "kind", "fork", "detail", "test", "evidence", ev));
        assertEquals(0, run("evidence", f.toString()), out);
        assertTrue(out.contains("gossip from auditor auditor-b: valid signature by auditor key "
                + auditor.publicKey().hex()) && out.contains("carrying peerSignedHead"), out);
        ev.put("peerGossip", new io.glassledger.api.SignedGossip.Message("auditor-c", gossip.key(), gossip.sentAt(),
                gossip.heads(), gossip.signature()));
        f = write(Map.of("shard", 2, "block", 7, "kind", "fork", "detail", "test", "evidence", ev));
        assertEquals(0, run("evidence", f.toString()), "the fork stands on the shard's signatures: " + out);
        assertTrue(out.contains("gossip from a peer auditor: NOT valid"), out);
    }

    @Test
    void nothingElseProvesIt() throws IOException {
        SignedHead a = head(server, 2, 7, 1);
        assertEquals(1, run("evidence", file(a, head(server, 2, 7, 1)).toString()), "same root: " + out);
        assertEquals(1, run("evidence", file(a, head(server, 2, 8, 2)).toString()), "another block: " + out);
        assertEquals(1, run("evidence", file(a, head(server, 3, 7, 2)).toString()), "another shard: " + out);
        assertEquals(1, run("evidence", file(a, head(SigningKey.generate(), 2, 7, 2)).toString()), "another key");
        assertEquals(1, run("evidence", file(a, head(server, 2, 7, 2)).toString(), "--server-key",
                SigningKey.generate().publicKey().hex()), "pinned key is not the signer: " + out);
    }

    @Test
    void everyChangedDigitOfEitherHeadLeavesItUnproven() throws IOException {
        SignedHead a = head(server, 2, 7, 1);
        SignedHead b = head(server, 2, 7, 2);
        for (String field : new String[] {"hash", "signature", "serverKey"}) {
            for (int side = 0; side < 2; side++) {
                Map<String, Object> heads = new LinkedHashMap<>();
                heads.put("peerSignedHead", json.convertValue(Wire.signedHead(a), Map.class));
                heads.put("shardSignedHead", json.convertValue(Wire.signedHead(b), Map.class));
                @SuppressWarnings("unchecked")
                Map<String, Object> target = (Map<String, Object>) heads.get(side == 0 ? "peerSignedHead"
                        : "shardSignedHead");
                String original = (String) target.get(field);
                for (int i = 0; i < original.length(); i++) {
                    char[] c = original.toCharArray();
                    c[i] = c[i] == '0' ? '1' : '0';
                    target.put(field, new String(c));
                    Path f = write(Map.of("kind", "fork", "evidence", heads));
                    int rc = run("evidence", f.toString(), "--server-key", server.publicKey().hex());
                    assertEquals(1, rc, field + " digit " + i + " of head " + side + ": " + out);
                }
                target.put(field, original);
            }
        }
        for (String field : new String[] {"block", "timestamp", "shard"}) {
            Map<String, Object> heads = new LinkedHashMap<>();
            Map<String, Object> changed = json.convertValue(Wire.signedHead(a), Map.class);
            changed.put(field, ((Number) changed.get(field)).longValue() + 1);
            heads.put("peerSignedHead", changed);
            heads.put("shardSignedHead", json.convertValue(Wire.signedHead(b), Map.class));
            assertEquals(1, run("evidence", write(Map.of("kind", "fork", "evidence", heads)).toString()),
                    field + ": " + out);
        }
    }

    /** A block the shard signed, holding a transaction whose signature fails; knobs to break each link. */
    Path blockEvidence(boolean validTx, boolean otherHead, boolean wrongUpperRoot, boolean alterServedTx)
            throws IOException {
        io.glassledger.core.ledger.Ledger ledger = io.glassledger.core.ledger.Ledger.openOrCreate(
                new io.glassledger.core.store.InMemoryNodeStore(), io.glassledger.core.postree.TreeParams.DEFAULT, 1);
        SigningKey client = SigningKey.generate();
        byte[] rec = new io.glassledger.verify.txn.TxnDraft(client, 0, System.currentTimeMillis())
                .put(io.glassledger.verify.hash.Bytes.utf8("balance"), io.glassledger.verify.hash.Bytes.utf8("1000000"))
                .sign().record();
        if (!validTx) {
            rec[rec.length - 1] ^= 1;  // the signature's last byte: the record still decodes
        }
        var stx = io.glassledger.verify.txn.SignedTransaction.decode(rec);
        var block = ledger.append(java.util.List.of(io.glassledger.verify.block.BlockSpec.of(10, java.util.List.of(stx))))
                .get(0);
        SignedHead head = SignedHead.sign(server, 0, otherHead ? new Digest(1, Hash.of(new byte[32]))
                : ledger.digest(1), 10);
        byte[] served = rec.clone();
        if (alterServedTx) {
            served[served.length - 70] ^= 1;
        }
        Map<String, Object> b = new LinkedHashMap<>();
        b.put("number", 1);
        b.put("hash", block.hash().hex());
        b.put("record", java.util.Base64.getEncoder().encodeToString(block.encode()));
        b.put("transactions", java.util.List.of(java.util.Base64.getEncoder().encodeToString(served)));
        b.put("upperRoot", wrongUpperRoot ? Hash.of(new byte[32]).hex() : ledger.upperRoot(1).hex());
        Map<String, Object> ev = new LinkedHashMap<>();
        ev.put("shardBlock", b);
        ev.put("shardSignedHead", Wire.signedHead(head));
        return write(Map.of("shard", 0, "block", 1, "kind", "bad_signature", "detail", "test", "evidence", ev));
    }

    @Test
    void aSignedBlockCommittingToAnUnsignedWriteIsProven() throws IOException {
        assertEquals(0, run("evidence", blockEvidence(false, false, false, false).toString(), "--server-key",
                server.publicKey().hex()), out);
        assertTrue(out.contains("UNSIGNED WRITE PROVEN"), out);
    }

    @Test
    void aBlockEvidenceWithABrokenLinkProvesNothing() throws IOException {
        assertEquals(1, run("evidence", blockEvidence(true, false, false, false).toString()), "valid tx: " + out);
        assertEquals(1, run("evidence", blockEvidence(false, true, false, false).toString()), "other head: " + out);
        assertEquals(1, run("evidence", blockEvidence(false, false, true, false).toString()), "upper root: " + out);
        assertEquals(1, run("evidence", blockEvidence(false, false, false, true).toString()), "served tx: " + out);
    }
}
