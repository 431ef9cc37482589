package io.glassledger.server.api;

import io.glassledger.server.auth.Allow;
import io.glassledger.server.auth.Role;
import io.glassledger.api.Dto;
import io.glassledger.api.Wire;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.block.Block;
import io.glassledger.verify.txn.SignedTransaction;
import io.glassledger.core.txn.TxnEngine;
import io.glassledger.server.shard.Shard;
import java.util.List;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

@RestController
@RequestMapping("/v1/blocks")
class BlockController {
    private final Shard shard;

    BlockController(Shard shard) {
        this.shard = shard;
    }

    @Allow({Role.CLIENT, Role.AUDITOR, Role.ADMIN})
    @GetMapping("/{number}")
    Mono<Dto.BlockDto> block(@PathVariable long number, ServerWebExchange exchange) {
        ResponseBudget.Lease lease = ResponseBudget.of(exchange);
        return Mono.fromCallable(() -> {
            TxnEngine e = shard.engine();
            long n = Blocks.persisted(e, number);
            Block b = e.ledger().block(n);
            Bytes txs = e.ledger().blockTransactions(n);
            // Served whole whatever its size, since auditors need every block: it counts toward the bytes in flight
            // only (the record is read whole, the store has no partial read; charged before it is encoded).
            lease.chargeInFlight(2048 + ResponseBudget.base64(b.encode().length)
                    + (txs == null ? 0 : ResponseBudget.base64(txs.length()) + txs.length() / 32));
            List<String> records = txs == null ? List.of()
                    : SignedTransaction.decodeList(txs).stream().map(SignedTransaction::record).map(Wire::b64).toList();
            return new Dto.BlockDto(n, b.timestamp(), b.hash().hex(), b.lowerRoot().hex(), Wire.b64(b.encode()),
                    records, Wire.digest(e.digest(n)), e.ledger().upperRoot(n).hex());
        }).subscribeOn(shard.reads());
    }
}
