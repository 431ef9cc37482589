package io.glassledger.server.directory;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.glassledger.api.PrivateFiles;
import io.glassledger.verify.codec.MalformedException;
import io.glassledger.server.auth.AuthStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cluster directory's state machine, on every member: applies committed {@link DirectoryEntry directory entries}
 * to the member's {@link AuthStore} (API keys, roles, client keys) and shard map, in log order, and keeps all of it
 * with the applied position in one file ({@code <data>/directory/state.json}, rewritten atomically after each entry:
 * changes are rare). A restart loads that file and skips the entries it already holds. Nothing throws out of
 * {@code applyTransaction}: a refusal (the last admin key, a key in use) is the entry's answer.
 */
final class DirectoryStateMachine extends BaseStateMachine {
    private static final Logger LOG = LoggerFactory.getLogger(DirectoryStateMachine.class);

    /** What {@code state.json} holds. */
    record State(long term, long index, boolean seeded, List<String> entries,
                 Map<String, AuthStore.KeyEntry> apiKeys, Map<String, String> clients,
                 Map<Integer, List<String>> shards) {
    }

    private final AuthStore auth;
    private final String peerKey;
    private final Path file;
    private final ObjectMapper json = new ObjectMapper();
    private final Runnable onLeaderReady;
    private final Set<String> appliedIds = new LinkedHashSet<>();
    /** Entries this member took as leader and has not applied yet (cleared on apply: then appliedIds holds them). */
    private final Set<String> proposed = new java.util.HashSet<>();
    private final Map<Integer, List<String>> shards = new TreeMap<>();
    private final java.util.NavigableMap<Long, List<CompletableFuture<Void>>> waiters = new TreeMap<>();
    private boolean seeded;
    private long appliedIndex;

    DirectoryStateMachine(AuthStore auth, String peerKey, Path dir, Runnable onLeaderReady) {
        this.auth = auth;
        this.peerKey = peerKey;
        this.file = dir.resolve("state.json");
        this.onLeaderReady = onLeaderReady;
    }

    @Override
    public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage storage) throws IOException {
        super.initialize(server, groupId, storage);
        if (Files.exists(file)) {
            State s = json.readValue(file.toFile(), new TypeReference<State>() { });
            synchronized (this) {
                auth.replaceAll(s.apiKeys(), s.clients());
                appliedIds.addAll(s.entries());
                shards.putAll(s.shards());
                seeded = s.seeded();
                appliedIndex = s.index();
            }
            updateLastAppliedTermIndex(s.term(), s.index());
            LOG.info("cluster directory: {} API keys, {} client keys, {} shards, as of entry {}", s.apiKeys().size(),
                    s.clients().size(), s.shards().size(), s.index());
        }
    }

    synchronized boolean seeded() {
        return seeded;
    }

    synchronized Map<Integer, List<String>> shards() {
        return new TreeMap<>(shards);
    }

    synchronized long appliedIndex() {
        return appliedIndex;
    }

    /** Completes once this member has applied entry {@code index}. */
    synchronized CompletableFuture<Void> applied(long index) {
        if (appliedIndex >= index) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> f = new CompletableFuture<>();
        waiters.computeIfAbsent(index, i -> new ArrayList<>()).add(f);
        return f;
    }

    /** Completes the waiters of every entry up to the applied one. */
    private void release() {
        var done = waiters.headMap(appliedIndex, true);
        List<CompletableFuture<Void>> ready = new ArrayList<>();
        done.values().forEach(ready::addAll);
        done.clear();
        ready.forEach(f -> f.complete(null));
    }

    /**
     * Only cluster members propose: an entry not sealed with the peer key never reaches the log. Nor does an entry
     * already applied, or already on its way to the log through this leader (a captured entry sent again): the
     * directory's log is never purged, so a replay would grow it, and every member would rewrite its state for it.
     * A refusal is the transaction's exception, not a thrown one: Ratis then answers the request with it (a
     * StateMachineException) and completes the request's retry-cache entry. A thrown one escapes Ratis's write path
     * with that entry still pending, so the sender's client sees its stream fail, and every retry of the request (the
     * same call id) waits on the pending entry until it times out.
     */
    @Override
    public TransactionContext startTransaction(RaftClientRequest request) throws IOException {
        String refusal = refusal(request.getMessage().getContent().toByteArray());
        TransactionContext trx = super.startTransaction(request);
        return refusal == null ? trx : trx.setException(new IOException("refused: " + refusal));
    }

    /** Why an entry a client proposes is refused, or null (it is then recorded as proposed). */
    private String refusal(byte[] data) {
        DirectoryEntry e;
        try {
            e = DirectoryEntry.decode(data, peerKey);
        } catch (MalformedException x) {
            return x.getMessage();
        }
        String id = e.id().hex();
        synchronized (this) {
            if (appliedIds.contains(id) || !proposed.add(id)) {
                return "entry " + id + " is already in the directory's log";
            }
        }
        return null;
    }

    @Override
    public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
        LogEntryProto entry = trx.getLogEntry();
        String answer;
        synchronized (this) {
            if (entry.getIndex() <= appliedIndex) {
                return CompletableFuture.completedFuture(Message.valueOf("applied"));  // replayed after a restart
            }
            answer = apply(entry.getStateMachineLogEntry().getLogData().toByteArray());
            appliedIndex = entry.getIndex();
            persist(entry.getTerm(), entry.getIndex());
            release();
        }
        updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
        return CompletableFuture.completedFuture(Message.valueOf(answer));
    }

    /** Applies one entry; its answer: empty if applied, else the refusal. */
    private String apply(byte[] data) {
        DirectoryEntry e;
        try {
            e = DirectoryEntry.decode(data, peerKey);
        } catch (MalformedException x) {
            LOG.error("cluster directory: an entry that cannot be read ({}); skipped", x.getMessage());
            return "malformed";
        }
        String id = e.id().hex();
        proposed.remove(id);
        if (!appliedIds.add(id)) {
            return "duplicate";
        }
        if (e.seed()) {
            if (seeded) {
                return "seeded";
            }
            Map<String, AuthStore.KeyEntry> keys = new LinkedHashMap<>();
            Map<String, String> clients = new LinkedHashMap<>();
            for (DirectoryEntry.Change c : e.changes()) {
                if (c instanceof DirectoryEntry.ApiKey k) {
                    keys.put(k.hashHex(), new AuthStore.KeyEntry(k.clientId(), k.role()));
                } else if (c instanceof DirectoryEntry.ClientKey k) {
                    clients.put(k.clientId(), k.publicKey().hex());
                } else if (c instanceof DirectoryEntry.ShardReplicas s) {
                    shards.put(s.shard(), s.urls());
                }
            }
            auth.replaceAll(keys, clients);
            seeded = true;
            LOG.info("cluster directory seeded: {} API keys, {} client keys, {} shards", keys.size(), clients.size(),
                    shards.size());
            return "";
        }
        List<String> answers = new ArrayList<>();
        for (DirectoryEntry.Change c : e.changes()) {
            String a;
            if (c instanceof DirectoryEntry.ApiKey k) {
                a = auth.applyApiKey(k.hashHex(), k.clientId(), k.role());
            } else if (c instanceof DirectoryEntry.Revoke r) {
                a = auth.applyRevoke(r.keyId());
            } else if (c instanceof DirectoryEntry.ClientKey k) {
                a = auth.applyRegistration(k.clientId(), k.publicKey());
            } else {
                DirectoryEntry.ShardReplicas s = (DirectoryEntry.ShardReplicas) c;
                shards.put(s.shard(), s.urls());
                a = null;
            }
            if (a != null) {
                answers.add(a);
            }
        }
        return String.join(";", answers);
    }

    private void persist(long term, long index) {
        State s = new State(term, index, seeded, new ArrayList<>(appliedIds), auth.keyEntries(), auth.clientEntries(),
                new TreeMap<>(shards));
        try {
            PrivateFiles.write(file, json.writeValueAsString(s));
        } catch (IOException e) {
            // The log still holds the entry: the next start applies it again from the last state written.
            LOG.error("cluster directory: cannot write {}: {}", file, e.toString());
        }
    }

    @Override
    public void notifyTermIndexUpdated(long term, long index) {
        synchronized (this) {
            if (index > appliedIndex) {
                appliedIndex = index;
                release();
            }
        }
        TermIndex now = getLastAppliedTermIndex();
        if (now == null || index > now.getIndex()) {
            updateLastAppliedTermIndex(term, index);
        }
    }

    @Override
    public void notifyLeaderReady() {
        onLeaderReady.run();
    }

    static String text(Message m) {
        return m.getContent().toString(StandardCharsets.UTF_8);
    }
}
