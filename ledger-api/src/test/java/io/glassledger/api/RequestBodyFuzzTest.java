package io.glassledger.api;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.glassledger.verify.codec.MalformedException;
import io.glassledger.verify.crypto.Ed25519;
import io.glassledger.verify.txn.SignedTransaction;
import java.io.IOException;

/**
 * Request bodies are untrusted bytes. Each is read by a mapper configured as the server's (Spring Boot's defaults:
 * unknown properties ignored) into every request record of {@link Dto}, then taken apart with the {@link Wire}
 * helpers the server uses. A body either decodes, or fails with an {@link IOException} from Jackson (a
 * {@code JsonProcessingException}, or a {@code CharConversionException} for bytes that are not text: a 400 from the
 * server), {@link Wire.BadWireException} (a 400 naming the field) or {@link MalformedException} (a record that is
 * not canonical); anything else would reach the client as a 500.
 */
class RequestBodyFuzzTest {
    static final JsonMapper MAPPER = JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();

    private interface Decoder<T> {
        void decode(T body);
    }

    @FuzzTest(maxDuration = "10s")
    void decode(byte[] body) {
        read(body, Dto.KeysRequest.class, r -> Wire.keys("keys", r.keys()));
        read(body, Dto.ProveKeysRequest.class, r -> Wire.keys("keys", r.keys()));
        read(body, Dto.CommitRequest.class, r -> SignedTransaction.decode(Wire.requiredBytes("record", r.record())));
        read(body, Dto.PrepareRequest.class, r -> SignedTransaction.decode(Wire.requiredBytes("record", r.record())));
        read(body, Dto.HistoryRequest.class, r -> Wire.requiredBytes("key", r.key()));
        read(body, Dto.ScanRequest.class, r -> {
            Wire.bytes("from", r.from());
            Wire.bytes("to", r.to());
        });
        read(body, Dto.ProofBatchRequest.class, r -> {
            if (r.items() == null) {
                return;  // ProofController refuses a batch without items
            }
            for (Dto.ProofItem item : r.items()) {
                if (item != null) {  // ProofController refuses a null item
                    Wire.keys("items.keys", item.keys());
                }
            }
        });
        read(body, Dto.AuditRequest.class, r -> {
            Wire.digest("digest", new Dto.DigestDto(r.block(), r.hash()));
            if (r.signedHead() != null) {
                Wire.signedHead("signedHead", r.signedHead());
            }
        });
        read(body, Dto.RegisterKeyRequest.class, r -> Wire.hex("publicKey", r.publicKey(), Ed25519.PUBLIC_KEY_BYTES));
        read(body, Dto.SignedHeadDto.class, r -> Wire.signedHead("head", r));
        read(body, Dto.ApiKeyRequest.class, r -> { });
    }

    private static <T> void read(byte[] body, Class<T> type, Decoder<T> then) {
        T value;
        try {
            value = MAPPER.readValue(body, type);
        } catch (IOException expected) {
            // JsonProcessingException, or CharConversionException for bytes that are not text in the encoding
            // Jackson detects (UTF-8/16/32); both are IOExceptions, which the caller turns into its refusal.
            return;
        }
        if (value == null) {
            return;  // the JSON literal null: the server's body() refuses it
        }
        try {
            then.decode(value);
        } catch (Wire.BadWireException | MalformedException expected) {
            // the documented refusals
        }
    }
}
