/** Strict canonical byte encoding: writer, bounds-checked reader, and the malformed-input exception. Pure. */
package io.glassledger.verify.codec;
