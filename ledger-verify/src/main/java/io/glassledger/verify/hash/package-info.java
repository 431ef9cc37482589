/**
 * Immutable byte and hash value types, and every domain-separated hash function of the format.
 * Pure: depends on nothing but the JDK.
 */
package io.glassledger.verify.hash;
