package io.glassledger.core.vectors;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * One proof vector file under construction. Every valid input is verified, and every invalid one checked to be
 * rejected, with the real verifier before it is added: a vector that says the wrong thing cannot be written.
 */
final class VectorFile {
    final String fileName;
    final String verifier;
    final ObjectNode root = Json.object();
    private final ArrayNode vectors;

    VectorFile(String fileName, String verifier, String description) {
        this.fileName = fileName;
        this.verifier = verifier;
        root.put("file", fileName);
        root.put("description", description);
        root.put("verifier", verifier);
        vectors = root.putArray("vectors");
    }

    Case add(String name, String ledger, String description, ObjectNode input) {
        try {
            VectorVerifier.verify(verifier, input);
        } catch (Exception e) {
            throw new IllegalStateException(fileName + " vector " + name + " does not verify", e);
        }
        return new Case(name, ledger, description, input);
    }

    String json() {
        return Json.write(root);
    }

    /** A valid input and the named mutations of it that must be rejected. */
    final class Case {
        final String name;
        final ObjectNode input;
        private final ObjectNode expect;
        private final ArrayNode invalid;

        private Case(String name, String ledger, String description, ObjectNode input) {
            this.name = name;
            this.input = input;
            ObjectNode v = vectors.addObject();
            v.put("name", name);
            v.put("ledger", ledger);
            v.put("description", description);
            v.set("input", input);
            expect = v.putObject("expect");
            invalid = v.putArray("invalid");
        }

        Case expect(String field, String hex) {
            expect.put(field, hex);
            return this;
        }

        /** Whether the verifier rejects the valid input with {@code overrides} applied. */
        boolean rejects(ObjectNode overrides) {
            return VectorVerifier.rejects(verifier, Json.merge(input, overrides));
        }

        /** Adds a mutation: {@code overrides} replaces fields of the valid input. */
        Case invalid(String mutation, String why, ObjectNode overrides) {
            ObjectNode merged = Json.merge(input, overrides);
            boolean rejected;
            try {
                rejected = VectorVerifier.rejects(verifier, merged);
            } catch (RuntimeException e) {
                throw new IllegalStateException(fileName + " " + name + " / " + mutation
                        + ": verifier threw an unexpected " + e, e);
            }
            if (!rejected) {
                throw new IllegalStateException(fileName + " " + name + " / " + mutation + " is accepted");
            }
            for (var e : invalid) {
                if (e.get("name").asText().equals(mutation)) {
                    throw new IllegalStateException("duplicate mutation name " + mutation + " in " + name);
                }
            }
            ObjectNode m = invalid.addObject();
            m.put("name", mutation);
            if (why != null) {
                m.put("why", why);
            }
            m.set("input", overrides);
            return this;
        }

        /** {@link #invalid}, and the verifier's message must contain {@code reason}: the mutation fails for it. */
        Case invalidBecause(String mutation, String why, ObjectNode overrides, String reason) {
            io.glassledger.verify.proof.VerificationException e =
                    VectorVerifier.rejection(verifier, Json.merge(input, overrides));
            if (e == null || !e.getMessage().contains(reason)) {
                throw new IllegalStateException(fileName + " " + name + " / " + mutation + ": expected a rejection for \""
                        + reason + "\", got " + e);
            }
            return invalid(mutation, why, overrides);
        }

        Case invalidProof(String mutation, String why, byte[] proof) {
            ObjectNode o = Json.object();
            o.put("proof", Json.hex(proof));
            return invalid(mutation, why, o);
        }
    }
}
