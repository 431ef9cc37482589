/** Netty pieces the server and the auditor share (optional dependency: never loaded by the SDK). */
package io.glassledger.api.net;
