package io.glassledger.auditor;

import io.glassledger.api.Dto;
import io.glassledger.api.SignedGossip;
import io.glassledger.api.Wire;
import io.glassledger.verify.proof.SignedHead;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/** The auditor's REST API (docs/API.md, "Auditor"): status, and clients' digests. */
@RestController
@RequestMapping("/v1")
class AuditController {
    private final AuditService service;
    private final Gossip gossip;
    /** Audits being answered; one more than the limit is refused at once rather than queued. */
    private final java.util.concurrent.Semaphore audits;
    private final int maxAudits;

    AuditController(AuditService service, Gossip gossip, AuditorProperties props) {
        this.service = service;
        this.gossip = gossip;
        this.maxAudits = props.maxConcurrentAudits();
        this.audits = new java.util.concurrent.Semaphore(maxAudits);
    }

    /**
     * Gossip from another auditor, signed by its key: its latest verified signed heads; the answer is this auditor's,
     * signed by this auditor's key. Unsigned, stale or unknown senders get a problem and are not looked at further.
     */
    @PostMapping("/gossip")
    Mono<ResponseEntity<Object>> gossip(@RequestBody(required = false) SignedGossip.Message m) {
        return Mono.fromCallable(() -> {
            try {
                gossip.receive(m);
            } catch (Gossip.Refused r) {
                return problem(r.code, r.status, r.getMessage());
            }
            return ResponseEntity.ok((Object) gossip.heads());
        }).subscribeOn(Schedulers.boundedElastic());
    }

    /**
     * Per shard: audited height, lag behind the head, the last verified signed head, violations, lag history, and
     * when the shard last answered. Not {@code ok} while a shard has a violation or is silent ({@link ShardContact}).
     */
    @GetMapping("/status")
    Map<String, Object> status() {
        List<Map<String, Object>> out = new ArrayList<>();
        for (ShardAuditor a : service.shards()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("shard", a.shard);
            m.put("url", a.url());
            m.put("auditedBlock", a.auditedBlock());
            m.put("headBlock", a.serverHead());
            m.put("lag", a.lag());
            SignedHead h = a.lastHead();
            m.put("lastVerified", h == null ? null : Wire.signedHead(h));
            m.put("blocksVerified", a.blocksVerified());
            m.put("writesVerified", a.writesApplied());
            m.put("halted", a.halted());
            ShardContact.Report c = a.contact();
            m.put("lastHeardAtMillis", c.lastHeardAtMillis());
            m.put("silentForMillis", c.silentForMillis());
            m.put("silent", c.silent());
            m.put("lastError", c.lastError());
            m.put("lastErrorAtMillis", c.lastErrorAtMillis());
            m.put("violations", a.violations());
            m.put("lagHistory", a.lagSamples());
            out.add(m);
        }
        boolean ok = out.stream().allMatch(m -> m.get("halted") == null && !(Boolean) m.get("silent"));
        return Map.of("shards", out, "ok", ok, "maxSilenceMillis", service.maxSilence().toMillis(),
                "peersLastHeard", gossip.lastHeard(), "auditorKey", gossip.publicKey().hex(),
                "auditsInFlight", maxAudits - audits.availablePermits());
    }

    /** GlassDB's Audit(digest, block_no): 200 if the digest is on the auditor's history, else a problem. */
    @PostMapping("/audit")
    Mono<ResponseEntity<Object>> audit(@RequestBody(required = false) Dto.AuditRequest req) {
        if (req == null || req.hash() == null || req.block() < 0 || req.shard() < 0
                || req.shard() >= service.shards().size()) {
            return Mono.just(problem("malformed", HttpStatus.BAD_REQUEST, "expected {shard, block, hash, "
                    + "signedHead?} for one of the " + service.shards().size() + " shards"));
        }
        ShardAuditor a = service.shards().get(req.shard());
        if (!audits.tryAcquire()) {
            return Mono.just(problem("overloaded", HttpStatus.SERVICE_UNAVAILABLE, maxAudits + " audits are being "
                    + "answered (glassledger.auditor.max-concurrent-audits); try again shortly"));
        }
        return Mono.fromCallable(() -> {
            ShardAuditor.AuditAnswer ans;
            try {
                ans = a.check(req);
            } catch (Wire.BadWireException e) {
                return problem("malformed", HttpStatus.BAD_REQUEST, e.getMessage());
            } catch (io.glassledger.core.store.StoreClosedException e) {
                return problem("unavailable", HttpStatus.SERVICE_UNAVAILABLE, "the auditor is shutting down");
            }
            if (ans.problem() == null) {
                return ResponseEntity.ok((Object) Map.of("shard", req.shard(), "block", req.block(), "status",
                        "consistent", "auditedBlock", a.auditedBlock()));
            }
            return switch (ans.problem()) {
                case "fork", "inconsistent" -> problem(ans.problem(), HttpStatus.CONFLICT, ans.detail());
                case "bad_signed_head" -> problem(ans.problem(), HttpStatus.BAD_REQUEST, ans.detail());
                case "pending" -> ResponseEntity.accepted().body((Object) Map.of("shard", req.shard(), "block",
                        req.block(), "status", "pending", "detail", ans.detail()));
                default -> problem(ans.problem(), HttpStatus.SERVICE_UNAVAILABLE, ans.detail());
            };
        }).subscribeOn(Schedulers.boundedElastic()).doFinally(signal -> audits.release());
    }

    private static ResponseEntity<Object> problem(String code, HttpStatus status, String detail) {
        ProblemDetail p = ProblemDetail.forStatusAndDetail(status, detail);
        p.setType(URI.create("https://glassledger.io/problems/" + code.replace('_', '-')));
        p.setProperty("code", code);
        p.setProperty("retryable", status == HttpStatus.SERVICE_UNAVAILABLE);
        var b = ResponseEntity.status(status).contentType(MediaType.APPLICATION_PROBLEM_JSON);
        if (status == HttpStatus.SERVICE_UNAVAILABLE) {
            b.header(org.springframework.http.HttpHeaders.RETRY_AFTER, "1");
        }
        return b.body(p);
    }
}
