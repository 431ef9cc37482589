{{/*
Names. The full name is cut to 40 characters: a pod is <fullname>-s<i>-<r>, a StatefulSet's revision label is its
name plus 11 characters, and both must stay within 63.
*/}}
{{- define "glassledger.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 40 | trimSuffix "-" -}}
{{- end -}}

{{- define "glassledger.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "glassledger.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "glassledger.labels" -}}
helm.sh/chart: {{ include "glassledger.chart" . }}
{{ include "glassledger.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: glassledger
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{- define "glassledger.selectorLabels" -}}
app.kubernetes.io/name: {{ include "glassledger.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* Selector of every server pod of the release. */}}
{{- define "glassledger.serverSelectorLabels" -}}
{{ include "glassledger.selectorLabels" . }}
app.kubernetes.io/component: server
{{- end -}}

{{/* Selector of one shard's pods: include with (dict "root" $ "shard" $s). */}}
{{- define "glassledger.shardSelectorLabels" -}}
{{ include "glassledger.serverSelectorLabels" .root }}
glassledger.io/shard: {{ .shard | quote }}
{{- end -}}

{{- define "glassledger.auditorSelectorLabels" -}}
{{ include "glassledger.selectorLabels" . }}
app.kubernetes.io/component: auditor
{{- end -}}

{{- define "glassledger.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{/* Topology. */}}
{{- define "glassledger.serversEnabled" -}}
{{- if and .Values.server.enabled (gt (int .Values.shards.count) 0) -}}true{{- end -}}
{{- end -}}

{{- define "glassledger.members" -}}
{{- if include "glassledger.serversEnabled" . -}}
{{- mul (int .Values.shards.count) (int .Values.shards.replicas) -}}
{{- else -}}0{{- end -}}
{{- end -}}

{{/* The headless Service of shard i: include with (dict "root" $ "shard" $i). */}}
{{- define "glassledger.shardName" -}}
{{- printf "%s-s%d" (include "glassledger.fullname" .root) (int .shard) -}}
{{- end -}}

{{/* <svc>.<ns>.svc.<domain> of shard i's headless Service. */}}
{{- define "glassledger.shardDomain" -}}
{{- printf "%s.%s.svc.%s" (include "glassledger.shardName" .) .root.Release.Namespace .root.Values.clusterDomain -}}
{{- end -}}

{{/* Comma-separated https URLs of shard i's replicas. */}}
{{- define "glassledger.shardUrls" -}}
{{- $name := include "glassledger.shardName" . -}}
{{- $domain := include "glassledger.shardDomain" . -}}
{{- $urls := list -}}
{{- range $r := until (int .root.Values.shards.replicas) -}}
{{- $urls = append $urls (printf "https://%s-%d.%s:8443" $name $r $domain) -}}
{{- end -}}
{{- join (default "," .sep) $urls -}}
{{- end -}}

{{/* host:port of every member, shard-major. */}}
{{- define "glassledger.allMembers" -}}
{{- $root := .root -}}
{{- $port := int .port -}}
{{- $members := list -}}
{{- range $i := until (int $root.Values.shards.count) -}}
{{- $ctx := dict "root" $root "shard" $i -}}
{{- $name := include "glassledger.shardName" $ctx -}}
{{- $domain := include "glassledger.shardDomain" $ctx -}}
{{- range $r := until (int $root.Values.shards.replicas) -}}
{{- $members = append $members (printf "%s-%d.%s:%d" $name $r $domain $port) -}}
{{- end -}}
{{- end -}}
{{- join "," $members -}}
{{- end -}}

{{/* Secrets. */}}
{{- define "glassledger.authSecretName" -}}
{{- default (printf "%s-secrets" (include "glassledger.fullname" .)) .Values.auth.existingSecret -}}
{{- end -}}

{{/* The servers' TLS Secret, or nothing (tls.generate off: each pod makes its own self-signed certificate). */}}
{{- define "glassledger.tlsSecretName" -}}
{{- if .Values.tls.existingSecret -}}
{{- .Values.tls.existingSecret -}}
{{- else if or .Values.tls.certManager.enabled .Values.tls.generate -}}
{{- printf "%s-tls" (include "glassledger.fullname" .) -}}
{{- end -}}
{{- end -}}

{{/* The chart makes the certificate itself (neither an existing Secret nor cert-manager). */}}
{{- define "glassledger.tlsGenerated" -}}
{{- if and .Values.tls.generate (not .Values.tls.existingSecret) (not .Values.tls.certManager.enabled) -}}true{{- end -}}
{{- end -}}

{{/* Every DNS name the servers answer to: each shard's headless names and the client Service's. A list, as JSON. */}}
{{- define "glassledger.dnsNames" -}}
{{- $fullname := include "glassledger.fullname" . -}}
{{- $dnsNames := list -}}
{{- range $i := until (int .Values.shards.count) -}}
{{- $domain := include "glassledger.shardDomain" (dict "root" $ "shard" $i) -}}
{{- $dnsNames = append $dnsNames (printf "*.%s" $domain) -}}
{{- $dnsNames = append $dnsNames $domain -}}
{{- end -}}
{{- $dnsNames = append $dnsNames $fullname -}}
{{- $dnsNames = append $dnsNames (printf "%s.%s" $fullname .Release.Namespace) -}}
{{- $dnsNames = append $dnsNames (printf "%s.%s.svc" $fullname .Release.Namespace) -}}
{{- $dnsNames = append $dnsNames (printf "%s.%s.svc.%s" $fullname .Release.Namespace .Values.clusterDomain) -}}
{{- $extra := .Values.tls.extraDnsNames | default list -}}
{{- concat $dnsNames $extra .Values.tls.certManager.extraDnsNames | uniq | toJson -}}
{{- end -}}

{{/* Auditor wiring. */}}
{{- define "glassledger.auditorEnabled" -}}
{{- if and .Values.auditor.enabled (gt (int .Values.auditor.replicas) 0) -}}true{{- end -}}
{{- end -}}

{{- define "glassledger.auditorExternalCluster" -}}
{{- if or .Values.auditor.cluster.urls .Values.auditor.cluster.configMap -}}true{{- end -}}
{{- end -}}

{{/* The ConfigMap and key holding the auditor's cluster.properties. */}}
{{- define "glassledger.auditorClusterConfigMap" -}}
{{- if .Values.auditor.cluster.configMap -}}
{{- .Values.auditor.cluster.configMap -}}
{{- else if .Values.auditor.cluster.urls -}}
{{- printf "%s-auditor-cluster" (include "glassledger.fullname" .) -}}
{{- else -}}
{{- printf "%s-cluster" (include "glassledger.fullname" .) -}}
{{- end -}}
{{- end -}}

{{- define "glassledger.auditorClusterConfigMapKey" -}}
{{- if .Values.auditor.cluster.configMap -}}{{ .Values.auditor.cluster.configMapKey }}{{- else -}}cluster.properties{{- end -}}
{{- end -}}

{{/* The auditor pins this release's certificate when it audits this release and no pin is given. */}}
{{- define "glassledger.auditorPinFromRelease" -}}
{{- if and (not .Values.auditor.cluster.pin) (not (include "glassledger.auditorExternalCluster" .)) (include "glassledger.tlsSecretName" .) -}}true{{- end -}}
{{- end -}}

{{/* The Secret and key holding the CA the ServiceMonitor verifies the servers' certificate against. */}}
{{- define "glassledger.serviceMonitorCaSecret" -}}
{{- default (include "glassledger.tlsSecretName" .) .Values.metrics.serviceMonitor.caSecret.name -}}
{{- end -}}

{{- define "glassledger.serviceMonitorCaKey" -}}
{{- if .Values.metrics.serviceMonitor.caSecret.key -}}
{{- .Values.metrics.serviceMonitor.caSecret.key -}}
{{- else if or .Values.metrics.serviceMonitor.caSecret.name .Values.tls.certManager.enabled -}}
ca.crt
{{- else -}}
tls.crt
{{- end -}}
{{- end -}}

{{/*
Refuses values that would render a cluster that cannot work. Included by templates/validate.yaml.
*/}}
{{- define "glassledger.validate" -}}
{{- $members := int (include "glassledger.members" .) -}}
{{- if and .Values.tls.existingSecret .Values.tls.certManager.enabled -}}
{{- fail "tls: set either tls.existingSecret or tls.certManager.enabled, not both" -}}
{{- end -}}
{{- if and (gt $members 1) (not (include "glassledger.tlsSecretName" .)) -}}
{{- fail (printf "tls: %d members (shards.count x shards.replicas) share one certificate that every member and client pins: set tls.existingSecret, tls.certManager.enabled or tls.generate (only a 1 x 1 release may let the server make a self-signed certificate per pod)" $members) -}}
{{- end -}}
{{- if and .Values.tls.certManager.enabled (not .Values.tls.certManager.selfSigned) (not .Values.tls.certManager.issuerRef.name) -}}
{{- fail "tls.certManager: set tls.certManager.issuerRef.name (an Issuer or ClusterIssuer), or tls.certManager.selfSigned: true" -}}
{{- end -}}
{{- if and (include "glassledger.serversEnabled" .) .Values.metrics.serviceMonitor.enabled (not (include "glassledger.serviceMonitorCaSecret" .)) -}}
{{- fail "metrics.serviceMonitor: the servers make their own self-signed certificate (tls.generate off, no tls.existingSecret nor tls.certManager), so Prometheus cannot verify it: configure TLS or give metrics.serviceMonitor.caSecret" -}}
{{- end -}}
{{- if include "glassledger.auditorEnabled" . -}}
{{- $servers := include "glassledger.serversEnabled" . -}}
{{- if and .Values.auditor.cluster.urls .Values.auditor.cluster.configMap -}}
{{- fail "auditor.cluster: set either urls or configMap, not both" -}}
{{- end -}}
{{- if not (or $servers (include "glassledger.auditorExternalCluster" .)) -}}
{{- fail "auditor: this release renders no server (shards.count: 0 or server.enabled: false): give the cluster to audit in auditor.cluster.urls or auditor.cluster.configMap, or set auditor.enabled: false" -}}
{{- end -}}
{{- if and .Values.auditor.cluster.urls (not .Values.auditor.cluster.pin) -}}
{{- fail "auditor.cluster.pin: the SHA-256 of the audited shards' certificate is required with auditor.cluster.urls" -}}
{{- end -}}
{{- if and (not (include "glassledger.auditorExternalCluster" .)) (not .Values.auditor.cluster.pin) (not (include "glassledger.tlsSecretName" .)) -}}
{{- fail "auditor: the servers make their own self-signed certificate (tls.generate off, no tls.existingSecret nor tls.certManager), so the auditor cannot pin it: configure TLS, set auditor.cluster.pin, or set auditor.enabled: false" -}}
{{- end -}}
{{- if and (not $servers) (not .Values.auditor.apiKey.existingSecret) -}}
{{- fail "auditor.apiKey.existingSecret: an auditor-only release needs the Secret holding its API key (role auditor on every shard)" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
The probes of a container: include with (dict "probes" <the probes values> "port" <the container port's name>). A
server's are on its management port (8444), which the API's connections cannot exhaust; the auditor's on its one
port.
*/}}
{{- define "glassledger.probes" -}}
startupProbe:
  httpGet:
    path: /actuator/health/liveness
    port: {{ .port }}
    scheme: HTTPS
  periodSeconds: {{ .probes.startup.periodSeconds }}
  failureThreshold: {{ .probes.startup.failureThreshold }}
  timeoutSeconds: {{ .probes.startup.timeoutSeconds }}
livenessProbe:
  httpGet:
    path: /actuator/health/liveness
    port: {{ .port }}
    scheme: HTTPS
  periodSeconds: {{ .probes.liveness.periodSeconds }}
  failureThreshold: {{ .probes.liveness.failureThreshold }}
  timeoutSeconds: {{ .probes.liveness.timeoutSeconds }}
readinessProbe:
  httpGet:
    path: /actuator/health/readiness
    port: {{ .port }}
    scheme: HTTPS
  periodSeconds: {{ .probes.readiness.periodSeconds }}
  failureThreshold: {{ .probes.readiness.failureThreshold }}
  timeoutSeconds: {{ .probes.readiness.timeoutSeconds }}
{{- end -}}

{{/* application.yml of a config map: include with the config values; empty when there is none. */}}
{{- define "glassledger.applicationYml" -}}
{{- if . -}}{{ toYaml . }}{{- end -}}
{{- end -}}
