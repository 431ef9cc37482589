package io.glassledger.api.contract;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.type.LogicalType;

/**
 * Request bodies are read literally: {@code "block": 1.9} is not block 1, {@code "limit": "5"} is not 5,
 * {@code "key": 12} is not the string "12", {@code null} is not 0 for a number the record requires, and a field
 * given twice is not its last value (a proxy or a validator that keeps the first would see another request). Each
 * of these is a 400 {@code malformed} instead of a guess. The server and the auditor apply it to Spring's mapper.
 */
public final class StrictJson {
    private StrictJson() {
    }

    public static ObjectMapper apply(ObjectMapper m) {
        m.enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
        m.disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT);
        m.enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);
        for (LogicalType t : new LogicalType[] {LogicalType.Integer, LogicalType.Float, LogicalType.Boolean}) {
            m.coercionConfigFor(t)
                    .setCoercion(CoercionInputShape.String, CoercionAction.Fail)
                    .setCoercion(CoercionInputShape.EmptyString, CoercionAction.Fail);
        }
        m.coercionConfigFor(LogicalType.Integer).setCoercion(CoercionInputShape.Float, CoercionAction.Fail);
        m.coercionConfigFor(LogicalType.Boolean).setCoercion(CoercionInputShape.Integer, CoercionAction.Fail);
        m.coercionConfigFor(LogicalType.Textual)
                .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
        return m;
    }
}
