package io.glassledger.client.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.glassledger.client.ValueProof;
import io.glassledger.verify.crypto.SigningKey;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.block.BlockSpec;
import io.glassledger.core.ledger.Ledger;
import io.glassledger.verify.entry.Entry;
import io.glassledger.verify.entry.Mutation;
import io.glassledger.core.postree.TreeParams;
import io.glassledger.verify.proof.Digest;
import io.glassledger.verify.proof.KeyClaim;
import io.glassledger.verify.proof.SignedHead;
import io.glassledger.core.store.InMemoryNodeStore;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ledger-cli verify} on proof files made from a real ledger: accepted as made, rejected once changed. */
class LedgerCliVerifyTest {
    @TempDir
    Path dir;
    Ledger ledger;
    SigningKey server = SigningKey.generate();
    String err;
    String out;

    @BeforeEach
    void ledger() {
        ledger = Ledger.openOrCreate(new InMemoryNodeStore(), new TreeParams(4, 32, 4, 16), 1000);
        for (int blk = 1; blk <= 4; blk++) {
            List<Mutation> w = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                w.add(Mutation.put(Bytes.utf8(String.format("acct/%03d", i)), Bytes.utf8(blk + "-" + i)));
            }
            w.add(Mutation.put(Bytes.utf8("alice"), Bytes.utf8("balance " + blk * 10)));
            w.sort((a, b) -> a.key().compareTo(b.key()));
            ledger.append(List.of(new BlockSpec(1000 + blk, List.of(Bytes.utf8("tx" + blk)), w)));
        }
    }

    /** The proof file `prove` would save for {@code key} in the state of {@code block}, signed at {@code head}. */
    private ValueProof proofFile(String key, long block, long head) {
        Bytes k = Bytes.utf8(key);
        Entry e = ledger.entry(k, block);
        Bytes value = e == null || e.isTombstone() ? null : e.value();
        Digest d = ledger.digest(block);
        Bytes proof = Bytes.wrap(ledger.proveKeys(List.of(k), block, block).encode());
        SignedHead h = SignedHead.sign(server, 0, ledger.digest(head), 1000 + head);
        Bytes ao = head == block ? null : Bytes.wrap(ledger.proveAppendOnly(block, head).encode());
        return new ValueProof(0, k, value, block, List.of(new KeyClaim(k, value)), d, proof, h, ao);
    }

    private Path write(ValueProof p) throws IOException {
        Path f = dir.resolve("proof.json");
        Files.write(f, p.toJson());
        return f;
    }

    private int run(String... args) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        int rc = LedgerCli.run(args, new PrintStream(o, true, StandardCharsets.UTF_8),
                new PrintStream(e, true, StandardCharsets.UTF_8), Map.of());
        out = o.toString(StandardCharsets.UTF_8);
        err = e.toString(StandardCharsets.UTF_8);
        return rc;
    }

    @Test
    void verify_proofAsMade_exits0() throws IOException {
        Path f = write(proofFile("alice", 4, 4));
        assertEquals(0, run("verify", f.toString()), err);
        assertTrue(out.contains("verified: alice = balance 40 in the state of block 4"), out);
    }

    @Test
    void verify_olderBlockWithAppendOnlyToTheSignedHead_exits0() throws IOException {
        Path f = write(proofFile("alice", 2, 4));
        assertEquals(0, run("verify", f.toString(), "--server-key", server.publicKey().hex()), err);
        assertTrue(out.contains("balance 20"), out);
    }

    @Test
    void verify_absentKey_exits0() throws IOException {
        Path f = write(proofFile("nobody", 4, 4));
        assertEquals(0, run("--json", "verify", f.toString()), err);
        assertTrue(out.contains("\"value\" : null"), out);
    }

    @Test
    void verify_everyByteOfTheProofChanged_exits1() throws IOException {
        ValueProof good = proofFile("alice", 4, 4);
        byte[] proof = good.proof().toByteArray();
        for (int i = 0; i < proof.length; i++) {
            for (int flip : new int[] {0x01, 0x80}) {
                byte[] t = proof.clone();
                t[i] ^= (byte) flip;
                Path f = write(new ValueProof(good.shard(), good.key(), good.value(), good.block(), good.claims(),
                        good.digest(), Bytes.wrap(t), good.signedHead(), good.appendOnly()));
                assertEquals(1, run("verify", f.toString()), "byte " + i + " ^ " + flip + " verified: " + out);
                assertTrue(err.startsWith("verification FAILED"), err);
            }
        }
        assertTrue(proof.length > 100, "a real multi-level proof: " + proof.length + " bytes");
    }

    @Test
    void verify_everyByteOfTheAppendOnlyProofChanged_exits1() throws IOException {
        ValueProof good = proofFile("alice", 2, 4);
        byte[] ao = good.appendOnly().toByteArray();
        for (int i = 0; i < ao.length; i++) {
            byte[] t = ao.clone();
            t[i] ^= 0x01;
            Path f = write(new ValueProof(good.shard(), good.key(), good.value(), good.block(), good.claims(),
                    good.digest(), good.proof(), good.signedHead(), Bytes.wrap(t)));
            assertEquals(1, run("verify", f.toString()), "append-only byte " + i);
        }
    }

    @Test
    void verify_otherValueClaimed_exits1() throws IOException {
        ValueProof good = proofFile("alice", 4, 4);
        Bytes lie = Bytes.utf8("balance 1000000");
        Path f = write(new ValueProof(0, good.key(), lie, 4, List.of(new KeyClaim(good.key(), lie)), good.digest(),
                good.proof(), good.signedHead(), null));
        assertEquals(1, run("verify", f.toString()));
        f = write(new ValueProof(0, good.key(), null, 4, List.of(KeyClaim.absent(good.key())), good.digest(),
                good.proof(), good.signedHead(), null));
        assertEquals(1, run("verify", f.toString()), "a present key cannot be proven absent");
    }

    @Test
    void verify_badSignatureOrOtherServer_exits1() throws IOException {
        ValueProof good = proofFile("alice", 4, 4);
        SignedHead h = good.signedHead();
        byte[] sig = h.signature().toByteArray();
        sig[5] ^= 1;
        SignedHead forged = new SignedHead(0, h.digest(), h.timestamp(), h.serverKey(), Bytes.wrap(sig));
        Path f = write(new ValueProof(0, good.key(), good.value(), 4, good.claims(), good.digest(), good.proof(),
                forged, null));
        assertEquals(1, run("verify", f.toString()));

        f = write(good);
        assertEquals(1, run("verify", f.toString(), "--server-key", SigningKey.generate().publicKey().hex()));
        assertEquals(0, run("verify", f.toString(), "--server-key", server.publicKey().hex()), err);
    }

    @Test
    void verify_headSigningAnotherDigest_exits1() throws IOException {
        ValueProof good = proofFile("alice", 4, 4);
        SignedHead other = SignedHead.sign(server, 0, ledger.digest(3), 1003);
        Path f = write(new ValueProof(0, good.key(), good.value(), 4, good.claims(), good.digest(), good.proof(),
                other, null));
        assertEquals(1, run("verify", f.toString()));
    }

    @Test
    void verify_expectedDigest() throws IOException {
        Path f = write(proofFile("alice", 2, 4));
        Digest d4 = ledger.digest(4);
        Digest d3 = ledger.digest(3);
        assertEquals(0, run("verify", f.toString(), "--digest", "4:" + d4.root().hex()), err);
        assertEquals(0, run("verify", f.toString(), "--digest", "2:" + ledger.digest(2).root().hex()), err);
        assertEquals(1, run("verify", f.toString(), "--digest", "3:" + d3.root().hex()));
        assertEquals(1, run("verify", f.toString(), "--digest", "4:" + d3.root().hex()));
    }

    /** The file prove saves when the CLI trusted digest {@code trusted} is older than the proof's. */
    private ValueProof withTrusted(ValueProof p, long trusted) {
        return new ValueProof(p.shard(), p.key(), p.value(), p.block(), p.claims(), p.digest(), p.proof(),
                p.signedHead(), p.appendOnly(), new ValueProof.Trusted(ledger.digest(trusted),
                        Bytes.wrap(ledger.proveAppendOnly(trusted, p.digest().blockNo()).encode())));
    }

    @Test
    void verify_trustedPart_linksTheOlderTrustedDigest() throws IOException {
        ValueProof plain = proofFile("alice", 4, 4);
        String d2 = "2:" + ledger.digest(2).root().hex();
        Path f = write(plain);
        assertEquals(1, run("verify", f.toString(), "--digest", d2), "without a trusted part, digest 2 is not linked");
        f = write(withTrusted(plain, 2));
        assertTrue(new String(Files.readAllBytes(f), StandardCharsets.UTF_8).contains("\"trusted\""));
        assertEquals(0, run("verify", f.toString(), "--digest", d2, "--server-key", server.publicKey().hex()), err);
        assertTrue(out.contains("extending the digest trusted before, 2:"), out);
        assertEquals(0, run("verify", f.toString(), "--digest", "4:" + ledger.digest(4).root().hex()), err);
        assertEquals(1, run("verify", f.toString(), "--digest", "3:" + ledger.digest(3).root().hex()));
    }

    @Test
    void verify_trustedPartTampered_exits1() throws IOException {
        ValueProof good = withTrusted(proofFile("alice", 4, 4), 2);
        ValueProof.Trusted t = good.trusted();
        byte[] ao = t.appendOnly().toByteArray();
        for (int i = 0; i < ao.length; i++) {
            byte[] x = ao.clone();
            x[i] ^= 0x01;
            Path f = write(new ValueProof(0, good.key(), good.value(), 4, good.claims(), good.digest(), good.proof(),
                    good.signedHead(), null, new ValueProof.Trusted(t.digest(), Bytes.wrap(x))));
            assertEquals(1, run("verify", f.toString()), "trusted append-only byte " + i);
        }
        // another digest at block 2 (here: block 3's root under block number 2), with the real proof
        Digest wrong = new Digest(2, ledger.digest(3).root());
        Path f = write(new ValueProof(0, good.key(), good.value(), 4, good.claims(), good.digest(), good.proof(),
                good.signedHead(), null, new ValueProof.Trusted(wrong, t.appendOnly())));
        assertEquals(1, run("verify", f.toString()));
        // a trusted digest that is not older than the proof's
        f = write(new ValueProof(0, good.key(), good.value(), 4, good.claims(), good.digest(), good.proof(),
                good.signedHead(), null, new ValueProof.Trusted(good.digest(), t.appendOnly())));
        assertEquals(1, run("verify", f.toString()));
        assertTrue(err.contains("not older"), err);
    }

    @Test
    void verify_notAProofFile_exits1_usageErrorsExit2() throws IOException {
        Path f = dir.resolve("junk.json");
        Files.writeString(f, "{\"format\": \"something else\"}");
        assertEquals(1, run("verify", f.toString()));
        Files.writeString(f, "not json");
        assertEquals(1, run("verify", f.toString()));
        assertEquals(1, run("verify", dir.resolve("missing.json").toString()));
        assertEquals(2, run("verify"));
        assertEquals(2, run());
        assertEquals(2, run("verify", f.toString(), "--bogus"));
        assertEquals(2, run("verify", f.toString(), "--digest", "nonsense"));
        assertEquals(2, run("frobnicate"));
        assertTrue(err.contains("ledger-cli --help"), err);
    }

    @Test
    void networkCommandWithoutApiKey_isUsageError() {
        assertEquals(2, run("get", "alice"));
        assertTrue(err.contains("no API key"), err);
    }
}
