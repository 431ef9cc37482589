/**
 * The rules of docs/FORMAT.md that a decoder or a verifier enforces, each by name ({@link
 * io.glassledger.verify.format.FormatRule}), so that a test can show that a test vector depends on each. Depends on
 * nothing; every decoder and verifier depends on it.
 */
package io.glassledger.verify.format;
