package io.glassledger.core.txn;

import io.glassledger.verify.txn.Transaction;
import io.glassledger.verify.txn.SignedTransaction;
import io.glassledger.verify.codec.ByteWriter;
import io.glassledger.verify.crypto.SigningKey;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hash;
import io.glassledger.verify.block.BlockSpec;
import io.glassledger.core.ledger.Ledger;
import io.glassledger.verify.entry.Entry;
import io.glassledger.verify.entry.Mutation;
import io.glassledger.core.postree.Node;
import io.glassledger.core.postree.TreeParams;
import io.glassledger.verify.proof.KeysProof;
import io.glassledger.core.store.InMemoryNodeStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * Writes the fuzz targets' seed corpora (a few valid encodings of each kind, from real objects) under each module's
 * src/test/resources. Run by hand when a format changes, from the repository root:
 * {@code ./mvnw -q -pl ledger-core test-compile org.codehaus.mojo:exec-maven-plugin:3.5.0:java
 * -Dexec.classpathScope=test -Dexec.mainClass=io.glassledger.core.txn.FuzzSeeds}. Deterministic: fixed keys,
 * transaction ids, signing key and timestamps. The {@code regression-*} inputs beside the seeds are past findings,
 * written by hand or kept from Jazzer, and are not regenerated.
 */
public final class FuzzSeeds {
    private FuzzSeeds() {
    }

    public static void main(String[] args) throws IOException {
        Path root = Path.of(args.length > 0 ? args[0] : ".");
        Path core = root.resolve("ledger-core/src/test/resources/io/glassledger/core");
        // The transaction and WAL decoders' fuzz tests live in ledger-engine since the engine left ledger-core.
        Path engine = root.resolve("ledger-engine/src/test/resources/io/glassledger/core");
        Ledger l = Ledger.openOrCreate(new InMemoryNodeStore(), new TreeParams(2, 16, 2, 8), 1_000);
        SigningKey client = SigningKey.fromSeed(new byte[32]);
        List<SignedTransaction> txs = new ArrayList<>();
        for (int b = 1; b <= 4; b++) {
            List<Mutation> writes = new ArrayList<>();
            for (int i = 0; i < 12; i++) {
                Bytes k = Bytes.utf8(String.format("key/%02d", (i * 7 + b) % 20));
                writes.add(b == 3 && i == 0 ? Mutation.delete(k) : Mutation.put(k, Bytes.utf8("v" + b + "." + i)));
            }
            writes.sort((x, y) -> x.key().compareTo(y.key()));
            writes = dedupe(writes);
            byte[] id = new byte[Transaction.TX_ID_BYTES];
            id[0] = (byte) b;
            Transaction tx = new Transaction(Bytes.wrap(id), client.publicKey(), 0, List.of(0),
                    List.of(new Transaction.Read(Bytes.utf8("key/00"), b - 1)), writes);
            SignedTransaction stx = SignedTransaction.sign(tx, client);
            txs.add(stx);
            l.append(List.of(new BlockSpec(1_000 + b, List.of(tx.txId()), writes, Bytes.wrap(txRecord(List.of(stx))))));
        }
        long head = l.head().block().number();
        Bytes k1 = Bytes.utf8("key/01");
        Bytes missing = Bytes.utf8("key/015");

        Path proofs = core.resolve("proof/ProofDecodeFuzzTestInputs/decode");
        KeysProof atHead = l.proveKeys(List.of(k1, missing), head, head);
        KeysProof older = l.proveKeys(List.of(k1), 2, head);
        write(proofs, "keys-at-digest", atHead.encode());
        write(proofs, "keys-older", older.encode());
        write(proofs, "append-only-1-4", l.proveAppendOnly(1, head).encode());
        write(proofs, "append-only-0-4", l.proveAppendOnly(0, head).encode());
        write(proofs, "history", l.proveHistory(k1, 4, head).proof().encode());
        write(proofs, "lower", new ByteWriter().u8(0).raw(atHead.lower().encode()).toByteArray());

        Path tx = engine.resolve("txn/TransactionDecodeFuzzTestInputs/decode");
        write(tx, "transaction", txs.get(0).tx().encode());
        write(tx, "signed-transaction", txs.get(0).record());
        write(tx, "block-transactions", txRecord(txs.subList(0, 2)));

        Path blocks = core.resolve("ledger/BlockDecodeFuzzTestInputs/decode");
        write(blocks, "genesis", l.block(0).encode());
        write(blocks, "block-2", l.block(2).encode());
        write(blocks, "tree-params", new TreeParams(2, 16, 2, 8).encode());

        Path nodes = core.resolve("postree/NodeDecodeFuzzTestInputs/decode");
        Node top = l.nodes().node(l.head().block().lowerRoot());
        write(nodes, "index", top.encode());
        Node n = top;
        while (n.level() > 0) {
            n = l.nodes().node(n.itemHash(0));
        }
        write(nodes, "leaf", n.encode());
        // Deltas against the fuzz target's fixed bases: an even first hash byte names its leaf, odd its index node.
        write(nodes, "delta-leaf", new ByteWriter().u8(Node.DELTA_TAG).hash(Hash.ZERO).u8(1).varint(1)
                .varint(1).varint(1).varint(1).raw(Entry.of(Bytes.utf8("b"), Bytes.utf8("x"), 5).encoded())
                .toByteArray());
        byte[] odd = new byte[32];
        odd[0] = 1;
        write(nodes, "delta-index", new ByteWriter().u8(Node.DELTA_TAG).raw(odd).u8(1).varint(1)
                .varint(2).varint(0).varint(1).lengthPrefixed(Bytes.utf8("d")).varint(4).hash(Hash.ZERO)
                .toByteArray());

        Path walDir = Files.createTempDirectory("wal-seed");
        try (Wal w = Wal.open(walDir, false)) {
            w.startSegment(1, List.of(txs.get(1).record()));
            w.append(Wal.COMMIT, txs.get(2).record());
            w.append(Wal.SEAL, new ByteWriter().u64(1_005).toByteArray());
        }
        Path seg = walDir.resolve("wal-0000000000000001.log");
        write(engine.resolve("txn/WalFrameFuzzTestInputs/open"), "segment", Files.readAllBytes(seg));
        Files.delete(seg);
        Files.delete(walDir);

        String digest = "{\"block\":" + head + ",\"hash\":\"" + l.digest().root().hex() + "\"}";
        String proof = Base64.getEncoder().encodeToString(atHead.encode());
        String claims = "[{\"key\":\"" + b64(k1) + "\",\"value\":\"" + b64(l.get(k1).orElseThrow()) + "\"},{\"key\":\""
                + b64(missing) + "\",\"value\":null}]";
        Path api = root.resolve("ledger-api/src/test/resources/io/glassledger/api/RequestBodyFuzzTestInputs/decode");
        write(api, "keys.json", json("{\"keys\":[\"" + b64(k1) + "\"],\"block\":3}"));
        write(api, "commit.json", json("{\"record\":\"" + b64(Bytes.wrap(txs.get(0).record()))
                + "\",\"waitPersisted\":true}"));
        write(api, "batch.json", json("{\"items\":[{\"block\":2,\"keys\":[\"" + b64(k1) + "\"]}],\"trustedBlock\":1}"));
        write(api, "audit.json", json("{\"shard\":0,\"block\":" + head + ",\"hash\":\"" + l.digest().root().hex()
                + "\",\"signedHead\":null}"));
        Path sdk = root.resolve("client-sdk/src/test/resources/io/glassledger/client/ResponseFuzzTestInputs/decode");
        write(sdk, "keys-proof.json", json("{\"block\":" + head + ",\"status\":\"READY\",\"digest\":" + digest
                + ",\"claims\":" + claims + ",\"proof\":\"" + proof + "\",\"head\":null}"));
        write(sdk, "history.json", json("{\"key\":\"" + b64(k1) + "\",\"versions\":[{\"block\":4,\"value\":\"djQuMA==\"}],"
                + "\"digest\":" + digest + ",\"proof\":\"" + Base64.getEncoder().encodeToString(
                        l.proveHistory(k1, 1, head).proof().encode()) + "\"}"));
        write(sdk, "append-only.json", json("{\"from\":{\"block\":1,\"hash\":\"" + l.digest(1).root().hex()
                + "\"},\"to\":" + digest + ",\"proof\":\"" + Base64.getEncoder().encodeToString(
                        l.proveAppendOnly(1, head).encode()) + "\"}"));
        write(sdk, "values.json", json("{\"items\":[{\"key\":\"" + b64(Bytes.utf8("k")) + "\",\"value\":null,"
                + "\"version\":0}],\"block\":null}"));
    }

    private static List<Mutation> dedupe(List<Mutation> sorted) {
        List<Mutation> out = new ArrayList<>();
        for (Mutation m : sorted) {
            if (out.isEmpty() || !out.get(out.size() - 1).key().equals(m.key())) {
                out.add(m);
            }
        }
        return out;
    }

    private static byte[] txRecord(List<SignedTransaction> txs) {
        ByteWriter w = new ByteWriter().varint(txs.size());
        txs.forEach(t -> w.lengthPrefixed(t.record()));
        return w.toByteArray();
    }

    private static String b64(Bytes b) {
        return Base64.getEncoder().encodeToString(b.unsafeArray());
    }

    private static byte[] json(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static void write(Path dir, String name, byte[] data) throws IOException {
        Files.createDirectories(dir);
        Files.write(dir.resolve(name), data);
    }
}
