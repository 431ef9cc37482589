package io.glassledger.client;

import io.glassledger.api.Dto;
import io.glassledger.api.Wire;
import io.glassledger.core.proof.KeyClaim;
import io.glassledger.core.proof.Version;
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
            if (c == null) {
                throw new Wire.BadWireException(field, "null claim");
            }
            out.add(new KeyClaim(Wire.requiredBytes(field + ".key", c.key()), Wire.bytes(field + ".value", c.value())));
        }
        return out;
    }

    /** A history's versions, newest first; a null value is a deletion. */
    static List<Version> versions(String field, List<Dto.VersionDto> versions) {
        if (versions == null) {
            throw new Wire.BadWireException(field, "missing");
        }
        List<Version> out = new ArrayList<>(versions.size());
        for (Dto.VersionDto v : versions) {
            if (v == null) {
                throw new Wire.BadWireException(field, "null version");
            }
            out.add(new Version(Wire.bytes(field + ".value", v.value()), v.block()));
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
