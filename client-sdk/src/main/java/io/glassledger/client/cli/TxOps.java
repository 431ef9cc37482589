package io.glassledger.client.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import io.glassledger.verify.entry.Entry;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.txn.SignedTransaction;
import io.glassledger.verify.txn.Transaction;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * The operations of {@code ledger-cli tx}, in order: from the command line ({@code get KEY}, {@code put KEY VALUE},
 * {@code delete KEY} or {@code del KEY}, keys and values as UTF-8, as {@code get}, {@code put} and {@code delete}
 * take them) or from a JSON file ({@code --file PATH}, {@code --file -} for stdin):
 *
 * <pre>{"ops": [{"op": "get", "key": "a"}, {"op": "put", "key": "b", "value": "v"},
 *          {"op": "delete", "key": "c"}]}</pre>
 *
 * A key or value that is not text is given as {@code keyBase64} / {@code valueBase64} (standard base64) instead of
 * {@code key} / {@code value}. Anything else is refused, with where: an unknown field (a typo must not turn a put
 * into something else), a missing or doubled one, a value on a get or delete, a duplicate name, trailing text.
 * Every refusal is a {@link Usage}, raised before anything is sent.
 */
final class TxOps {
    /**
     * The largest file read: a transaction record's limit ({@link SignedTransaction#MAX_RECORD_BYTES}), so a file
     * that cannot be one transaction is refused without being held whole. A server's request limit is lower.
     */
    static final int MAX_FILE_BYTES = SignedTransaction.MAX_RECORD_BYTES;
    static final String FORMS = "get KEY, put KEY VALUE or delete KEY";

    enum Kind { GET, PUT, DELETE }

    /** One operation; {@code value} only for a put. */
    record Op(Kind kind, Bytes key, Bytes value) {
    }

    private static final Set<String> OP_FIELDS = Set.of("op", "key", "keyBase64", "value", "valueBase64");

    private TxOps() {
    }

    /** The operations of {@code tx ...} or {@code tx --file PATH}: one to {@link Transaction#MAX_OPS}. */
    static List<Op> read(Args a, InputStream stdin) {
        String file = a.opt("--file");
        List<Op> ops;
        if (file != null) {
            if (a.words.size() != 1) {
                throw new Usage("tx --file takes no operations on the command line as well");
            }
            ops = fromJson(readFile(file, stdin), file.equals("-") ? "stdin" : file);
        } else {
            ops = fromWords(a.words.subList(1, a.words.size()));
        }
        if (ops.isEmpty()) {
            throw new Usage("tx needs at least one operation: " + FORMS + " (or --file PATH)");
        }
        if (ops.size() > Transaction.MAX_OPS) {
            throw new Usage("tx: " + ops.size() + " operations, over a transaction's " + Transaction.MAX_OPS);
        }
        return ops;
    }

    static List<Op> fromWords(List<String> words) {
        List<Op> ops = new ArrayList<>();
        for (int i = 0; i < words.size(); ) {
            String w = words.get(i);
            Kind kind = kind(w);
            if (kind == null) {
                throw new Usage("tx: unknown operation \"" + w + "\" (operation " + (ops.size() + 1) + "): expected "
                        + FORMS);
            }
            int need = kind == Kind.PUT ? 2 : 1;
            if (i + need >= words.size()) {
                throw new Usage("tx: " + w + " needs " + (kind == Kind.PUT ? "KEY VALUE" : "KEY") + " (operation "
                        + (ops.size() + 1) + ")");
            }
            Bytes key = Bytes.of(key(words.get(i + 1).getBytes(StandardCharsets.UTF_8), "tx operation "
                    + (ops.size() + 1)));
            Bytes value = kind == Kind.PUT ? value(words.get(i + 2).getBytes(StandardCharsets.UTF_8), "tx operation "
                    + (ops.size() + 1)) : null;
            ops.add(new Op(kind, key, value));
            i += need + 1;
        }
        return ops;
    }

    static List<Op> fromJson(byte[] json, String source) {
        if (new String(json, StandardCharsets.UTF_8).isBlank()) {
            throw new Usage(source + " is empty: expected {\"ops\": [...]}, an array of operations");
        }
        JsonNode root;
        try {
            root = Context.JSON.readerFor(JsonNode.class).with(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                    .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).readValue(json);
        } catch (JsonProcessingException e) {
            String at = e.getLocation() == null ? "" : " at line " + e.getLocation().getLineNr() + ", column "
                    + e.getLocation().getColumnNr();
            throw new Usage(source + ": not valid JSON" + at + ": " + e.getOriginalMessage().lines().findFirst()
                    .orElse(""));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + source, e);
        }
        if (root == null || !root.isObject() || !root.has("ops") || root.size() != 1 || !root.get("ops").isArray()) {
            throw new Usage(source + ": expected {\"ops\": [...]}, an object with one field, an array of operations");
        }
        List<Op> ops = new ArrayList<>();
        for (JsonNode o : root.get("ops")) {
            ops.add(op(o, source + ": ops[" + ops.size() + "]"));
        }
        return ops;
    }

    private static Op op(JsonNode o, String where) {
        if (!o.isObject()) {
            throw new Usage(where + " is not an object");
        }
        for (Iterator<String> names = o.fieldNames(); names.hasNext(); ) {
            String n = names.next();
            if (!OP_FIELDS.contains(n)) {
                throw new Usage(where + ": unknown field \"" + n + "\" (fields: op, key or keyBase64, value or "
                        + "valueBase64)");
            }
        }
        JsonNode opName = o.get("op");
        Kind kind = opName != null && opName.isTextual() ? kind(opName.asText()) : null;
        if (kind == null) {
            throw new Usage(where + ": \"op\" must be \"get\", \"put\" or \"delete\"" + (opName == null ? ", missing"
                    : ", got " + opName));
        }
        byte[] key = key(bytes(o, "key", where), where);
        byte[] value = bytes(o, "value", where);
        if (kind == Kind.PUT && value == null) {
            throw new Usage(where + ": a put needs \"value\" or \"valueBase64\"");
        }
        if (kind != Kind.PUT && value != null) {
            throw new Usage(where + ": a " + opName.asText() + " takes no value");
        }
        return new Op(kind, Bytes.of(key), kind == Kind.PUT ? value(value, where) : null);
    }

    /** The field {@code name} (text, as UTF-8) or {@code nameBase64}: one of them, or neither (null). */
    private static byte[] bytes(JsonNode o, String name, String where) {
        JsonNode text = o.get(name);
        JsonNode b64 = o.get(name + "Base64");
        if (text != null && b64 != null) {
            throw new Usage(where + ": give \"" + name + "\" or \"" + name + "Base64\", not both");
        }
        if (text == null && b64 == null) {
            if (name.equals("key")) {
                throw new Usage(where + ": \"key\" or \"keyBase64\" is missing");
            }
            return null;
        }
        JsonNode v = text != null ? text : b64;
        if (!v.isTextual()) {
            throw new Usage(where + ": \"" + (text != null ? name : name + "Base64") + "\" must be a string");
        }
        if (text != null) {
            return v.asText().getBytes(StandardCharsets.UTF_8);
        }
        try {
            return Base64.getDecoder().decode(v.asText());
        } catch (IllegalArgumentException e) {
            throw new Usage(where + ": \"" + name + "Base64\" is not base64: " + e.getMessage());
        }
    }

    private static Bytes value(byte[] v, String where) {
        if (v.length > Entry.MAX_VALUE_BYTES) {
            throw new Usage(where + ": a value of " + v.length + " bytes, over the " + Entry.MAX_VALUE_BYTES
                    + " a GlassLedger server accepts");
        }
        return Bytes.of(v);
    }

    private static Kind kind(String w) {
        return switch (w) {
            case "get" -> Kind.GET;
            case "put" -> Kind.PUT;
            case "delete", "del" -> Kind.DELETE;
            default -> null;
        };
    }

    private static byte[] readFile(String file, InputStream stdin) {
        try {
            if (file.equals("-")) {
                return bounded(stdin, file);  // stdin is the caller's to close
            }
            try (InputStream in = Files.newInputStream(Path.of(file))) {
                return bounded(in, file);
            }
        } catch (NoSuchFileException e) {
            throw new Usage("--file " + file + ": no such file");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    private static byte[] bounded(InputStream in, String file) throws IOException {
        byte[] b = in.readNBytes(MAX_FILE_BYTES + 1);
        if (b.length > MAX_FILE_BYTES) {
            throw new Usage("--file " + file + ": over " + MAX_FILE_BYTES + " bytes, more than one transaction can "
                    + "hold");
        }
        return b;
    }

    /** {@link Values#key}, its refusal saying where. */
    private static byte[] key(byte[] k, String where) {
        try {
            return Values.key(k);
        } catch (Usage u) {
            throw new Usage(where + ": " + u.getMessage());
        }
    }
}
