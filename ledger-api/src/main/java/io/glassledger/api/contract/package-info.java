/**
 * What the services (ledger-server, auditor) publish and enforce about the bodies of {@code io.glassledger.api}:
 * the OpenAPI contract written into springdoc's document, and strict JSON reading. Depends on swagger-models and
 * Jackson, both optional dependencies of ledger-api, so that the SDK's users do not get them: only the services,
 * which have both, may use this package.
 */
package io.glassledger.api.contract;
