package io.glassledger.client;

import io.glassledger.api.Dto;
import io.glassledger.api.Wire;
import io.glassledger.verify.crypto.SigningKey;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.block.BlockSpec;
import io.glassledger.core.ledger.Ledger;
import io.glassledger.verify.entry.Entry;
import io.glassledger.verify.entry.Mutation;
import io.glassledger.core.postree.TreeParams;
import io.glassledger.verify.proof.Digest;
import io.glassledger.verify.proof.SignedHead;
import io.glassledger.core.store.InMemoryNodeStore;
import io.glassledger.verify.txn.Promise;
import io.glassledger.verify.txn.PromiseVerifier;
import io.glassledger.verify.txn.SignedTransaction;
import io.glassledger.verify.txn.TxnDraft;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * A real ledger (in memory) with a server key and a client key, answering what the server would: keys proofs,
 * append-only proofs, signed heads and proof batches, built the way ledger-server builds them. No fake logic: every
 * proof comes from {@link Ledger}.
 */
final class TestLedger {
    static final int SHARD = 0;
    final Ledger ledger = Ledger.openOrCreate(new InMemoryNodeStore(), TreeParams.DEFAULT, 1000);
    final SigningKey server = SigningKey.generate();
    final SigningKey client = SigningKey.generate();
    private long ts = 1000;

    static Bytes b(String s) {
        return Bytes.utf8(s);
    }

    SignedTransaction tx(Consumer<TxnDraft> body) {
        TxnDraft d = new TxnDraft(client, SHARD, System.currentTimeMillis());
        body.accept(d);
        return d.sign();
    }

    /** Appends one block holding the transactions' writes; returns its number. */
    long append(SignedTransaction... txs) {
        TreeMap<Bytes, Mutation> writes = new TreeMap<>();
        List<Bytes> ids = new ArrayList<>();
        for (SignedTransaction t : txs) {
            ids.add(t.txId());
            t.tx().writes().forEach(m -> writes.put(m.key(), m));
        }
        ledger.append(List.of(new BlockSpec(++ts, ids, new ArrayList<>(writes.values()))));
        return ledger.digest().blockNo();
    }

    Digest digest() {
        return ledger.digest();
    }

    SignedHead head() {
        return SignedHead.sign(server, SHARD, ledger.digest(), ts);
    }

    SignedHead head(long block) {
        return SignedHead.sign(server, SHARD, ledger.digest(block), ts);
    }

    TrustedState trust(long block) {
        return new TrustedState(server.publicKey(), SHARD, ledger.digest(block), head(block));
    }

    /** The promise a shard would give, served at {@code served}. */
    CommitPromise promise(SignedTransaction t, long block, long served, List<PromiseVerifier.Read> reads) {
        return new CommitPromise(new Promise(t.txId(), SHARD, block, ledger.digest(served)), t, reads,
                System.nanoTime());
    }

    /** What a read in a transaction would have seen at block {@code at}. */
    PromiseVerifier.Read read(String key, long at) {
        Entry e = ledger.entry(b(key), at);
        return new PromiseVerifier.Read(b(key), e == null || e.isTombstone() ? null : e.value(),
                e == null ? 0 : e.version());
    }

    /** A keys proof of {@code keys} at {@code block} against the head, as the server sends it. */
    Dto.KeysProofDto proof(long block, List<Bytes> keys) {
        List<Bytes> sorted = new ArrayList<>(new TreeSet<>(keys));
        List<Dto.ClaimDto> claims = new ArrayList<>();
        for (Bytes k : sorted) {
            Entry e = ledger.entry(k, block);
            claims.add(new Dto.ClaimDto(Wire.b64(k), e == null || e.isTombstone() ? null : Wire.b64(e.value())));
        }
        long head = ledger.digest().blockNo();
        return new Dto.KeysProofDto(block, "READY", Wire.digest(ledger.digest()), claims,
                Wire.b64(ledger.proveKeys(sorted, block, head).encode()), null);
    }

    Dto.AppendOnlyProofDto appendOnly(long from, long to) {
        return new Dto.AppendOnlyProofDto(Wire.digest(ledger.digest(from)), Wire.digest(ledger.digest(to)),
                Wire.b64(ledger.proveAppendOnly(from, to).encode()));
    }

    /** The server's answer to a proof batch of {@code items}: blocks beyond the head are PENDING. */
    Dto.ProofBatchResponse answer(List<ProofBatchPlanner.Item> items, long trustedBlock) {
        long head = ledger.digest().blockNo();
        List<Dto.KeysProofDto> proofs = new ArrayList<>();
        boolean ready = false;
        for (ProofBatchPlanner.Item i : items) {
            if (i.block() > head) {
                proofs.add(new Dto.KeysProofDto(i.block(), "PENDING", null, null, null, null));
            } else {
                proofs.add(proof(i.block(), i.keys()));
                ready = true;
            }
        }
        List<Dto.AppendOnlyProofDto> ao = ready && head > trustedBlock ? List.of(appendOnly(trustedBlock, head))
                : List.of();
        return new Dto.ProofBatchResponse(proofs, ao, Wire.signedHead(head()));
    }
}
