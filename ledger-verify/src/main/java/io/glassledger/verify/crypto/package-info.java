/** Ed25519 signatures (RFC 8032) over Bouncy Castle's constant-time implementation. */
package io.glassledger.verify.crypto;
