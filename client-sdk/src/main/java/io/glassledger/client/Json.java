package io.glassledger.client;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The SDK's Jackson mappers: nulls left out of requests (an omitted field means "default"), unknown fields ignored.
 */
final class Json {
    static final ObjectMapper MAPPER = new ObjectMapper()
            .setSerializationInclusion(JsonInclude.Include.NON_NULL)
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
            .configure(SerializationFeature.FAIL_ON_EMPTY_BEANS, false);

    /** Pretty, and keeping nulls: for files people read (state, proof files, evidence). */
    static final ObjectMapper FILES = new ObjectMapper()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
            .enable(SerializationFeature.INDENT_OUTPUT);

    private Json() {
    }

    static byte[] write(Object o) {
        try {
            return MAPPER.writeValueAsBytes(o);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
