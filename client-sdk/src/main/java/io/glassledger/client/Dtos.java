package io.glassledger.client;

import io.glassledger.api.Dto;
import io.glassledger.api.Wire;
import io.glassledger.core.proof.KeyClaim;
import java.util.ArrayList;
import java.util.List;

/** Conversions between the API's JSON records and ledger-core values that {@link Wire} does not cover. */
final class Dtos {
    private Dtos() {
    }

    static List<KeyClaim> claims(String field, List<Dto.ClaimDto> claims) {
        if (claims == null) {
            throw new Wire.BadWireException(field, "missing");
        }
        List<KeyClaim> out = new ArrayList<>(claims.size());
        for (Dto.ClaimDto c : claims) {
            out.add(new KeyClaim(Wire.requiredBytes(field + ".key", c.key()), Wire.bytes(field + ".value", c.value())));
        }
        return out;
    }

    static List<Dto.ClaimDto> claims(List<KeyClaim> claims) {
        return claims.stream().map(c -> new Dto.ClaimDto(Wire.b64(c.key()), Wire.b64(c.value()))).toList();
    }

    static byte[] base64(String field, String b64) {
        return Wire.requiredBytes(field, b64).unsafeArray();
    }
}
