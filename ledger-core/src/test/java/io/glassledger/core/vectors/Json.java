package io.glassledger.core.vectors;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hash;
import io.glassledger.verify.proof.Digest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HexFormat;

/** JSON conventions of the vector files: lower-case hex for bytes, null for "no value", '\n' line ends. */
final class Json {
    static final ObjectMapper MAPPER = new ObjectMapper();
    private static final HexFormat HEX = HexFormat.of();

    private Json() {
    }

    static ObjectNode object() {
        return MAPPER.createObjectNode();
    }

    static ArrayNode array() {
        return MAPPER.createArrayNode();
    }

    /** Pretty-printed with two-space indents and '\n' line ends on every platform, plus a final newline. */
    static String write(JsonNode n) {
        DefaultIndenter nl = new DefaultIndenter("  ", "\n");
        DefaultPrettyPrinter pp = new DefaultPrettyPrinter().withObjectIndenter(nl).withArrayIndenter(nl);
        try {
            return MAPPER.writer(pp).without(com.fasterxml.jackson.databind.SerializationFeature.INDENT_OUTPUT)
                    .with(JsonGenerator.Feature.WRITE_BIGDECIMAL_AS_PLAIN).writeValueAsString(n) + "\n";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static JsonNode parse(String s) {
        try {
            return MAPPER.readTree(s);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String hex(byte[] b) {
        return HEX.formatHex(b);
    }

    static byte[] unhex(String s) {
        return HEX.parseHex(s);
    }

    /** Hex of the bytes, or JSON null. */
    static void putBytes(ObjectNode o, String field, Bytes b) {
        if (b == null) {
            o.putNull(field);
        } else {
            o.put(field, b.hex());
        }
    }

    static Bytes bytes(JsonNode n) {
        return n == null || n.isNull() ? null : Bytes.wrap(unhex(n.asText()));
    }

    static Hash hash(JsonNode n) {
        return Hash.fromHex(n.asText());
    }

    static ObjectNode digest(Digest d) {
        ObjectNode o = object();
        o.put("blockNo", d.blockNo());
        o.put("root", d.root().hex());
        return o;
    }

    static Digest digest(JsonNode n) {
        return new Digest(n.get("blockNo").asLong(), hash(n.get("root")));
    }

    /** The valid input with the fields of {@code overrides} replaced. */
    static ObjectNode merge(JsonNode input, JsonNode overrides) {
        ObjectNode out = ((ObjectNode) input).deepCopy();
        for (var e : overrides.properties()) {
            out.set(e.getKey(), e.getValue());
        }
        return out;
    }
}
