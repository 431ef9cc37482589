package io.glassledger.client.cli;

import io.glassledger.verify.block.BlockSpec;
import io.glassledger.verify.format.Format;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.glassledger.api.Dto;
import io.glassledger.api.Wire;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hash;
import io.glassledger.verify.hash.Hashing;
import io.glassledger.verify.block.Block;
import io.glassledger.verify.entry.Entry;
import io.glassledger.verify.entry.Mutation;
import io.glassledger.verify.proof.KeyClaim;
import io.glassledger.verify.proof.KeysProof;
import io.glassledger.verify.proof.ProofVerifier;
import io.glassledger.verify.proof.SignedHead;
import io.glassledger.verify.proof.VerificationException;
import io.glassledger.verify.txn.SignedTransaction;
import io.glassledger.verify.txn.Transaction;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Checks an auditor's violation (a line of {@code violations.jsonl}) with nothing but the file: a pure function of
 * the JSON and an optional pinned server key. What it can prove:
 * <ul>
 *   <li>a fork: two valid signed heads of one shard, under one key, for one block, with two roots;</li>
 *   <li>an unsigned write: a block tied to the shard's signature that commits to a transaction whose client
 *       signature fails;</li>
 *   <li>a replayed transaction: two signed blocks that both carry one transaction id, or a signed block carrying an
 *       id whose clock is outside the stated replay window of the block's timestamp (proven under that window);</li>
 *   <li>a stale read: a signed block whose transaction recorded a read version that the shard's own signed proof of
 *       the previous block's state, advanced by the block's earlier transactions, contradicts.</li>
 * </ul>
 */
final class EvidenceCheck {
    /** The verdict: {@code proven} is the conclusion when the file proves the violation, else null. */
    record Result(String kind, String detail, List<String> findings, String proven) {
    }

    /** A block as served, re-checked: whether its record, signature and transactions hold together. */
    private record CheckedBlock(Block block, List<SignedTransaction> txs, boolean signedAndBound, SignedHead head) {
    }

    private EvidenceCheck() {
    }

    static Result check(JsonNode root, Bytes pinned, ObjectMapper json) {
        JsonNode ev = root.has("evidence") ? root.get("evidence") : root;
        String kind = root.path("kind").asText("?");
        List<String> findings = new ArrayList<>();
        Map<String, SignedHead> heads = new LinkedHashMap<>();
        for (var it = ev.fields(); it.hasNext(); ) {
            var f = it.next();
            if (!f.getKey().toLowerCase(Locale.ROOT).endsWith("signedhead") || !f.getValue().isObject()) {
                continue;
            }
            try {
                SignedHead h = Wire.signedHead(f.getKey(), json.treeToValue(f.getValue(), Dto.SignedHeadDto.class));
                h.verify();
                if (pinned != null) {
                    h.verify(pinned);
                }
                heads.put(f.getKey(), h);
                findings.add("signed head " + f.getKey() + ": shard " + h.shard() + ", block " + h.digest().blockNo()
                        + ", root " + h.digest().root().hex() + ", valid signature by " + h.serverKey().hex());
            } catch (IOException | RuntimeException | VerificationException e) {
                findings.add("signed head " + f.getKey() + ": NOT valid (" + e.getMessage() + ")");
            }
        }
        if (ev.has("peerGossip")) {
            findings.add(peerGossip(ev.get("peerGossip"), heads.get("peerSignedHead"), json));
        }
        String proven = fork(heads);
        CheckedBlock block = null;
        if (ev.has("shardBlock")) {
            block = checkBlock("shardBlock", ev.get("shardBlock"), heads.get("shardSignedHead"), findings);
            String unsigned = block == null ? null : unsignedWrite(block, findings);
            proven = proven != null ? proven : unsigned;
        }
        if (proven == null && block != null && ev.hasNonNull("txId")) {
            if ("replayed_transaction".equals(kind)) {
                proven = replay(ev, block, heads, findings);
            } else if ("stale_read".equals(kind)) {
                proven = staleRead(ev, block, pinned, json, findings);
            }
        }
        return new Result(kind, root.path("detail").asText(""), findings, proven);
    }

    /** Who reported a head through gossip: the peer auditor's signature over its message, which must carry the head. */
    private static String peerGossip(JsonNode node, SignedHead reported, ObjectMapper json) {
        try {
            var m = json.treeToValue(node, io.glassledger.api.SignedGossip.Message.class);
            List<SignedHead> sent = io.glassledger.api.SignedGossip.verify(m);
            return "gossip from auditor " + m.from() + ": valid signature by auditor key " + m.key() + " at "
                    + java.time.Instant.ofEpochMilli(m.sentAt()) + (reported != null && sent.contains(reported)
                    ? ", carrying peerSignedHead" : ", NOT carrying peerSignedHead");
        } catch (IOException | RuntimeException | VerificationException e) {
            return "gossip from a peer auditor: NOT valid (" + e.getMessage() + ")";
        }
    }

    private static String fork(Map<String, SignedHead> heads) {
        List<Map.Entry<String, SignedHead>> hs = new ArrayList<>(heads.entrySet());
        for (int i = 0; i < hs.size(); i++) {
            for (int j = i + 1; j < hs.size(); j++) {
                SignedHead x = hs.get(i).getValue();
                SignedHead y = hs.get(j).getValue();
                if (x.shard() == y.shard() && x.serverKey().equals(y.serverKey())
                        && x.digest().blockNo() == y.digest().blockNo() && !x.digest().equals(y.digest())) {
                    return "FORK PROVEN: shard " + x.shard() + "'s key " + x.serverKey().hex() + " signed two roots "
                            + "for block " + x.digest().blockNo() + ": " + x.digest().root().hex() + " ("
                            + hs.get(i).getKey() + ") and " + y.digest().root().hex() + " (" + hs.get(j).getKey() + ")";
                }
            }
        }
        return null;
    }

    /**
     * What a block the shard served shows: its hashes, whether its digest (from the record and the upper root) is
     * the one the shard signed for it, and whether the transactions are the ones the record commits to.
     */
    private static CheckedBlock checkBlock(String name, JsonNode b, SignedHead signed, List<String> out) {
        try {
            long n = b.path("number").asLong();
            Block block = Block.decode(n, Base64.getDecoder().decode(b.path("record").asText()));
            out.add(name + " " + n + ": record hashes to " + block.hash().hex()
                    + (block.hash().hex().equals(b.path("hash").asText()) ? " (as the shard said)" : " (the shard said "
                    + b.path("hash").asText() + ")"));
            List<SignedTransaction> txs = new ArrayList<>();
            for (var t : b.path("transactions")) {
                txs.add(SignedTransaction.decode(Bytes.wrap(Base64.getDecoder().decode(t.asText()))));
            }
            Bytes meta = block.meta().get(Format.TXS_META);
            boolean bound = meta != null && meta.equals(Bytes.wrap(SignedTransaction.transactionsHash(txs)
                    .toByteArray()));
            out.add("its " + txs.size() + " signed transactions " + (bound ? "are" : "are NOT")
                    + " the ones the block record commits to (meta txs)");
            boolean signedBlock = false;
            if (signed != null && b.hasNonNull("upperRoot")) {
                Hash root = Hashing.digest(n, block.lowerRoot(), Hash.fromHex(b.path("upperRoot").asText()),
                        block.bodyHash());
                signedBlock = signed.digest().blockNo() == n && signed.digest().root().equals(root);
                out.add("the block's digest " + (signedBlock ? "IS" : "is not") + " the one the shard signed for block "
                        + signed.digest().blockNo());
            }
            return new CheckedBlock(block, txs, signedBlock && bound, signed);
        } catch (RuntimeException e) {
            out.add(name + " does not decode: " + e.getMessage());
            return null;
        }
    }

    private static String unsignedWrite(CheckedBlock b, List<String> out) {
        String unsigned = null;
        for (SignedTransaction stx : b.txs()) {
            if (!stx.signatureValid()) {
                out.add("transaction " + stx.txId().hex() + " does NOT carry a valid signature by "
                        + stx.tx().clientKey().hex());
                if (b.signedAndBound() && unsigned == null) {
                    unsigned = "UNSIGNED WRITE PROVEN: shard " + b.head().shard() + "'s key "
                            + b.head().serverKey().hex() + " signed block " + b.block().number() + ", which commits to "
                            + "transaction " + stx.txId().hex() + " whose client signature does not verify";
                }
            }
        }
        return unsigned;
    }

    private static SignedTransaction find(CheckedBlock b, Bytes txId) {
        return b.txs().stream().filter(t -> t.txId().equals(txId)).findFirst().orElse(null);
    }

    private static String replay(JsonNode ev, CheckedBlock block, Map<String, SignedHead> heads, List<String> out) {
        Bytes txId = Bytes.fromHex(ev.get("txId").asText());
        SignedTransaction stx = find(block, txId);
        if (stx == null || !block.signedAndBound()) {
            out.add("the signed block does not carry transaction " + txId.hex());
            return null;
        }
        long n = block.block().number();
        if (ev.has("earlierBlock")) {
            CheckedBlock earlier = checkBlock("earlierBlock", ev.get("earlierBlock"), heads.get("earlierSignedHead"),
                    out);
            if (earlier == null || !earlier.signedAndBound() || find(earlier, txId) == null
                    || earlier.block().number() == n || !earlier.head().serverKey().equals(block.head().serverKey())
                    || earlier.head().shard() != block.head().shard()) {
                out.add("the earlier block does not show transaction " + txId.hex() + " under the same shard's key");
                return null;
            }
            return "REPLAY PROVEN: shard " + block.head().shard() + "'s key " + block.head().serverKey().hex()
                    + " signed blocks " + earlier.block().number() + " and " + n + ", both carrying transaction "
                    + txId.hex();
        }
        if (ev.has("replayWindowMillis")) {
            long window = ev.get("replayWindowMillis").asLong();
            long off = Math.abs(block.block().timestamp() - Transaction.idMillis(txId));
            if (off > window) {
                return "REPLAY PROVEN (under the " + window + " ms window assumption): shard " + block.head().shard()
                        + "'s key signed block " + n + " with timestamp " + block.block().timestamp()
                        + ", carrying transaction " + txId.hex() + " whose id clock is " + off + " ms away";
            }
            out.add("transaction " + txId.hex() + " is within " + window + " ms of its block's timestamp");
        }
        return null;
    }

    /**
     * The shard's keys proof of the key at block n − 1, verified against its signed head, gives the key's version
     * before block n; the block's transactions before the stale one advance it; the stale one recorded another.
     */
    private static String staleRead(JsonNode ev, CheckedBlock block, Bytes pinned, ObjectMapper json,
                                    List<String> out) {
        Bytes txId = Bytes.fromHex(ev.get("txId").asText());
        if (!block.signedAndBound() || find(block, txId) == null || !ev.has("priorState") || !ev.has("key")) {
            out.add("the file does not tie transaction " + txId.hex() + " and the prior state to the shard's signature");
            return null;
        }
        long n = block.block().number();
        Bytes key = Bytes.wrap(Base64.getDecoder().decode(ev.get("key").asText()));
        long version;
        try {
            Dto.KeysProofDto p = json.treeToValue(ev.get("priorState"), Dto.KeysProofDto.class);
            SignedHead h = Wire.signedHead("priorState.head", p.head());
            h.verify(pinned != null ? pinned : block.head().serverKey());
            if (p.block() != n - 1 || h.shard() != block.head().shard()) {
                out.add("the prior-state proof is of block " + p.block() + ", not " + (n - 1));
                return null;
            }
            List<KeyClaim> claims = new ArrayList<>();
            int at = -1;
            for (Dto.ClaimDto c : p.claims()) {
                Bytes k = Wire.requiredBytes("claims.key", c.key());
                if (k.equals(key)) {
                    at = claims.size();
                }
                claims.add(c.value() == null ? KeyClaim.absent(k) : KeyClaim.present(k, Wire.requiredBytes("value",
                        c.value())));
            }
            if (at < 0) {
                out.add("the prior-state proof does not cover the key");
                return null;
            }
            Entry[] found = ProofVerifier.verifiedEntries(h.digest(), n - 1, claims,
                    KeysProof.decode(Base64.getDecoder().decode(p.proof())));
            version = found[at] == null ? 0 : found[at].version();
            out.add("the shard's signed proof: key " + ev.get("key").asText() + " is at version " + version
                    + " in block " + (n - 1) + (found[at] != null && !found[at].isTombstone() ? " (live)" : ""));
            boolean live = found[at] != null && !found[at].isTombstone();
            Map<Bytes, Boolean> written = new HashMap<>();
            for (SignedTransaction stx : block.txs()) {
                if (stx.txId().equals(txId)) {
                    long now = written.containsKey(key) ? n : version;
                    for (Transaction.Read r : stx.tx().reads()) {
                        if (r.key().equals(key) && r.version() != now) {
                            return "STALE READ PROVEN: shard " + h.shard() + "'s key " + h.serverKey().hex()
                                    + " signed block " + n + ", whose transaction " + txId.hex() + " read the key at "
                                    + "version " + r.version() + " where replaying the blocks in order gives version "
                                    + now + ": no serial order produces that block";
                        }
                    }
                    out.add("transaction " + txId.hex() + " read the key at the version the state had there");
                    return null;
                }
                for (Mutation m : stx.tx().writes()) {
                    if (m.key().equals(key)) {
                        boolean wasLive = written.getOrDefault(key, live);
                        if (!m.isDelete() || wasLive) {
                            written.put(key, !m.isDelete());
                        }
                    }
                }
            }
        } catch (IOException | RuntimeException | VerificationException e) {
            out.add("the prior-state proof does not verify: " + e.getMessage());
        }
        return null;
    }
}
