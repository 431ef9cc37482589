/**
 * What the services (ledger-server, auditor) publish and enforce about the bodies of {@code io.glassledger.api}:
 * the OpenAPI contract written into springdoc's document, and strict JSON reading; and what both check at start
 * (unknown {@code glassledger.*} properties against their configuration metadata, one process per data directory).
 * Depends on swagger-models, Jackson and Spring Boot, optional dependencies of ledger-api, so that the SDK's users
 * do not get them: only the services, which have them, may use this package.
 */
package io.glassledger.api.contract;
