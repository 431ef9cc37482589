package io.glassledger.core.demo;

import io.glassledger.verify.crypto.SigningKey;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.proof.AppendOnlyProof;
import io.glassledger.verify.proof.Digest;
import io.glassledger.verify.proof.KeysProof;
import io.glassledger.verify.proof.ProofVerifier;
import io.glassledger.verify.proof.VerificationException;
import io.glassledger.verify.txn.BlockProof;
import io.glassledger.core.txn.EngineConfig;
import io.glassledger.verify.txn.Promise;
import io.glassledger.core.txn.ProofResult;
import io.glassledger.verify.txn.PromiseVerifier;
import io.glassledger.verify.txn.SignedTransaction;
import io.glassledger.verify.txn.TxnDraft;
import io.glassledger.core.txn.TxnEngine;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The README's main command until the server exists: opens (or creates) a shard in ./data, commits signed
 * transfers through the transaction engine, waits for their blocks, verifies the promises and a current-value proof
 * against the digest, and shows a false claim being rejected. Run it twice: the append-only proof from the previous
 * run's digest shows that the ledger only grows.
 */
public final class LedgerDemo {
    private LedgerDemo() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args.length > 0 ? args[0] : "data");
        Files.createDirectories(dir);
        SigningKey client = clientKey(dir.resolve("demo-client.key"));
        try (TxnEngine engine = TxnEngine.open(EngineConfig.defaults(dir))) {
            Digest trusted = engine.digest();
            System.out.println("shard at " + dir.toAbsolutePath() + ", head " + trusted);
            Digest previous = readDigest(dir.resolve("demo-trusted-digest"));

            List<SignedTransaction> txs = new ArrayList<>();
            List<Promise> promises = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                Bytes from = Bytes.utf8("account/" + i);
                Bytes to = Bytes.utf8("account/" + (i + 1));
                TxnEngine.Versioned a = engine.get(from);
                TxnEngine.Versioned b = engine.get(to);
                long av = a.value() == null ? 1000 : Long.parseLong(a.value().utf8String());
                long bv = b.value() == null ? 1000 : Long.parseLong(b.value().utf8String());
                SignedTransaction tx = new TxnDraft(client, 0, System.currentTimeMillis())
                        .read(from, a.version()).read(to, b.version())
                        .put(from, Bytes.utf8(Long.toString(av - 10))).put(to, Bytes.utf8(Long.toString(bv + 10)))
                        .sign();
                Promise p = engine.commit(tx).get();
                txs.add(tx);
                promises.add(p);
                System.out.println("committed transfer of 10 from account/" + i + " to account/" + (i + 1)
                        + ": promise of block " + p.blockNo());
            }

            for (int i = 0; i < txs.size(); i++) {
                Promise p = promises.get(i);
                ProofResult r = engine.proveWrites(p.blockNo(), keys(txs.get(i)), Duration.ofSeconds(5)).get();
                if (!(r instanceof ProofResult.Ready ready)) {
                    throw new IllegalStateException("block " + p.blockNo() + " still pending");
                }
                BlockProof bp = ready.proof();
                AppendOnlyProof ao = bp.digest().blockNo() == trusted.blockNo() ? null
                        : engine.proveAppendOnly(trusted.blockNo(), bp.digest().blockNo());
                trusted = PromiseVerifier.verify(trusted, p, txs.get(i).tx(), bp, ao);
                System.out.println("verified promise of block " + p.blockNo() + " (batched proof "
                        + bp.proof().encode().length + " bytes), now trusting " + trusted);
            }

            Digest digest = engine.digest();
            Bytes key = Bytes.utf8("account/3");
            Bytes value = engine.get(key).value();
            KeysProof proof = engine.ledger().proveKeys(List.of(key), digest.blockNo(), digest.blockNo());
            byte[] encoded = proof.encode();
            ProofVerifier.verifyCurrentValue(digest, key, value, KeysProof.decode(encoded));
            System.out.println("verified: " + key.utf8String() + " = " + value.utf8String() + " is current at block "
                    + digest.blockNo() + " (proof " + encoded.length + " bytes)");
            try {
                ProofVerifier.verifyCurrentValue(digest, key, Bytes.utf8("1000000"), proof);
                throw new IllegalStateException("a false claim verified");
            } catch (VerificationException expected) {
                System.out.println("rejected: a false value for the same proof (" + expected.getMessage() + ")");
            }
            if (previous != null && previous.blockNo() < digest.blockNo()) {
                AppendOnlyProof ao = engine.proveAppendOnly(previous.blockNo(), digest.blockNo());
                ProofVerifier.verifyAppendOnly(previous, digest, AppendOnlyProof.decode(ao.encode()));
                System.out.println("verified: the previous run's block " + previous.blockNo() + " → "
                        + digest.blockNo() + " is append-only (" + ao.encode().length + " bytes)");
            }
            Files.writeString(dir.resolve("demo-trusted-digest"), digest.blockNo() + " " + digest.root().hex());
            System.out.println("digest " + digest);
        }
    }

    private static List<Bytes> keys(SignedTransaction tx) {
        return tx.tx().writes().stream().map(m -> m.key()).toList();
    }

    private static SigningKey clientKey(Path file) throws IOException {
        if (Files.exists(file)) {
            return SigningKey.fromSeed(Bytes.fromHex(Files.readString(file).trim()).toByteArray());
        }
        SigningKey k = SigningKey.generate();
        Files.writeString(file, Bytes.of(k.seed()).hex());
        return k;
    }

    private static Digest readDigest(Path file) throws IOException {
        if (!Files.exists(file)) {
            return null;
        }
        String[] parts = Files.readString(file).trim().split(" ");
        return new Digest(Long.parseLong(parts[0]), io.glassledger.verify.hash.Hash.fromHex(parts[1]));
    }
}
