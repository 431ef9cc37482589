package io.glassledger.auditor;

import java.util.Map;

/**
 * Something a shard did that an honest shard cannot: kept with the evidence a third party can check (the signed
 * heads, the block records, the transactions, the proof), and never dropped.
 *
 * @param kind     {@code bad_signature}, {@code unregistered_key}, {@code block_mismatch}, {@code digest_mismatch},
 *                 {@code fork}, {@code not_append_only}, {@code bad_block}
 * @param evidence hex / base64 strings and numbers, as JSON
 */
public record Violation(int shard, long block, String kind, String detail, long detectedAtMillis,
                        Map<String, Object> evidence) {
}
