{{/* Chart name, truncated to the 63 characters of a DNS label. */}}
{{- define "leasehold-proxy.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Full name: release name, plus the chart name unless the release name already has it. */}}
{{- define "leasehold-proxy.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "leasehold-proxy.selectorLabels" -}}
app.kubernetes.io/name: {{ include "leasehold-proxy.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "leasehold-proxy.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "leasehold-proxy.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: leasehold
{{- end }}

{{- define "leasehold-proxy.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "leasehold-proxy.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* [registry/]repository@digest when a digest is given (immutable), else [registry/]repository:tag (appVersion by default). */}}
{{- define "leasehold-proxy.image" -}}
{{- $repository := .Values.image.repository }}
{{- with .Values.image.registry }}
{{- $repository = printf "%s/%s" . $repository }}
{{- end }}
{{- if .Values.image.digest }}
{{- printf "%s@%s" $repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" $repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{/* The single address the proxy tier advertises to clients. */}}
{{- define "leasehold-proxy.advertisedHost" -}}
{{- if .Values.config.listener.advertisedHost }}
{{- .Values.config.listener.advertisedHost }}
{{- else }}
{{- printf "%s.%s.svc.%s" (include "leasehold-proxy.fullname" .) .Release.Namespace .Values.clusterDomain }}
{{- end }}
{{- end }}

{{- define "leasehold-proxy.advertisedPort" -}}
{{- if .Values.config.listener.advertisedPort }}
{{- .Values.config.listener.advertisedPort | int }}
{{- else if and (eq .Values.service.type "NodePort") .Values.service.nodePort }}
{{- .Values.service.nodePort | int }}
{{- else }}
{{- .Values.service.port | int }}
{{- end }}
{{- end }}

{{/* Whole seconds (rounded up) of a proxy duration such as 250ms, 20s, 10m or 1h. */}}
{{- define "leasehold-proxy.durationSeconds" -}}
{{- $d := toString . }}
{{- if regexMatch "^[0-9]+ms$" $d }}
{{- div (add (trimSuffix "ms" $d | atoi) 999) 1000 }}
{{- else if regexMatch "^[0-9]+s$" $d }}
{{- trimSuffix "s" $d | atoi }}
{{- else if regexMatch "^[0-9]+m$" $d }}
{{- mul (trimSuffix "m" $d | atoi) 60 }}
{{- else if regexMatch "^[0-9]+h$" $d }}
{{- mul (trimSuffix "h" $d | atoi) 3600 }}
{{- else }}
{{- fail (printf "expected a duration like 250ms, 5s, 10m or 1h, got %q" $d) }}
{{- end }}
{{- end }}

{{- define "leasehold-proxy.etcdAuthDir" -}}/etc/leasehold/etcd-auth{{- end }}
{{- define "leasehold-proxy.etcdTlsDir" -}}/etc/leasehold/etcd-tls{{- end }}
{{- define "leasehold-proxy.listenerTlsDir" -}}/etc/leasehold/listener-tls{{- end }}
{{- define "leasehold-proxy.listenerSaslDir" -}}/etc/leasehold/listener-sasl{{- end }}
{{- define "leasehold-proxy.listenerJwksDir" -}}/etc/leasehold/listener-jwks{{- end }}
{{/* "true" when listenerSasl.mechanisms lists PLAIN or SCRAM, which need the users file; empty otherwise. */}}
{{- define "leasehold-proxy.saslUsesUsers" -}}
{{- range .mechanisms }}{{ if ne . "OAUTHBEARER" }}true{{ end }}{{ end }}
{{- end }}
{{- define "leasehold-proxy.aclsDir" -}}/etc/leasehold/acls{{- end }}
{{- define "leasehold-proxy.quotasDir" -}}/etc/leasehold/quotas{{- end }}
{{- define "leasehold-proxy.auditDir" -}}/var/log/leasehold-audit{{- end }}
{{- define "leasehold-proxy.backendTlsDir" -}}/etc/leasehold/backend-tls{{- end }}
{{- define "leasehold-proxy.backendSaslDir" -}}/etc/leasehold/backend-sasl{{- end }}

{{/* The proxy's proxy.yaml, built from values so it always has the proxy's exact key names. */}}
{{- define "leasehold-proxy.config" -}}
{{- $c := .Values.config }}
{{- $etcd := dict "endpoints" $c.etcd.endpoints "prefix" $c.etcd.prefix "connectTimeout" $c.etcd.connectTimeout }}
{{- with .Values.etcdCredentials.auth }}
{{- if .existingSecret }}
{{- $_ := set $etcd "usernameFile" (printf "%s/username" (include "leasehold-proxy.etcdAuthDir" $)) }}
{{- $_ := set $etcd "passwordFile" (printf "%s/password" (include "leasehold-proxy.etcdAuthDir" $)) }}
{{- end }}
{{- end }}
{{- with .Values.etcdCredentials.tls }}
{{- if .existingSecret }}
{{- $_ := set $etcd "tlsCaFile" (printf "%s/ca.crt" (include "leasehold-proxy.etcdTlsDir" $)) }}
{{- if .clientCertificate }}
{{- $_ := set $etcd "tlsCertFile" (printf "%s/tls.crt" (include "leasehold-proxy.etcdTlsDir" $)) }}
{{- $_ := set $etcd "tlsKeyFile" (printf "%s/tls.key" (include "leasehold-proxy.etcdTlsDir" $)) }}
{{- end }}
{{- end }}
{{- end }}
{{- $listener := dict "host" "0.0.0.0" "port" (.Values.ports.kafka | int) "advertisedHost" (include "leasehold-proxy.advertisedHost" .) "advertisedPort" (include "leasehold-proxy.advertisedPort" . | int) }}
{{- with .Values.listenerTls }}
{{- if .existingSecret }}
{{- $_ := set $listener "tlsCertFile" (printf "%s/tls.crt" (include "leasehold-proxy.listenerTlsDir" $)) }}
{{- $_ := set $listener "tlsKeyFile" (printf "%s/tls.key" (include "leasehold-proxy.listenerTlsDir" $)) }}
{{- if ne .clientAuth "none" }}
{{- $_ := set $listener "tlsCaFile" (printf "%s/ca.crt" (include "leasehold-proxy.listenerTlsDir" $)) }}
{{- $_ := set $listener "tlsClientAuth" .clientAuth }}
{{- $principal := dict "from" .principalFrom }}
{{- if .principalMappingRules }}
{{- $_ := set $principal "mappingRules" .principalMappingRules }}
{{- end }}
{{- $_ := set $listener "tlsPrincipal" $principal }}
{{- end }}
{{- end }}
{{- end }}
{{- with .Values.listenerSasl }}
{{- if .mechanisms }}
{{- $sasl := dict "mechanisms" .mechanisms }}
{{- if include "leasehold-proxy.saslUsesUsers" . }}
{{- $_ := set $sasl "usersFile" (printf "%s/users.yaml" (include "leasehold-proxy.listenerSaslDir" $)) }}
{{- end }}
{{- if has "OAUTHBEARER" .mechanisms }}
{{- $o := .oauthbearer }}
{{- $oauth := dict "principalClaim" $o.principalClaim }}
{{- if $o.jwksSecret }}
{{- $_ := set $oauth "jwksFile" (printf "%s/jwks.json" (include "leasehold-proxy.listenerJwksDir" $)) }}
{{- else }}
{{- $_ := set $oauth "jwksUrl" $o.jwksUrl }}
{{- end }}
{{- if $o.issuer }}
{{- $_ := set $oauth "issuer" $o.issuer }}
{{- end }}
{{- if $o.audience }}
{{- $_ := set $oauth "audience" $o.audience }}
{{- end }}
{{- if $o.clockSkew }}
{{- $_ := set $oauth "clockSkew" $o.clockSkew }}
{{- end }}
{{- $_ := set $sasl "oauthbearer" $oauth }}
{{- end }}
{{- if .connectionsMaxReauth }}
{{- $_ := set $sasl "connectionsMaxReauth" .connectionsMaxReauth }}
{{- end }}
{{- $_ := set $listener "sasl" $sasl }}
{{- end }}
{{- end }}
{{- $backends := deepCopy $c.backends }}
{{- with .Values.backendTls }}
{{- if .enabled }}
{{- $tls := dict "enabled" true "verifyHostname" .verifyHostname "protocols" .protocols }}
{{- if .existingSecret }}
{{- $_ := set $tls "caFile" (printf "%s/ca.crt" (include "leasehold-proxy.backendTlsDir" $)) }}
{{- if .clientCertificate }}
{{- $_ := set $tls "certFile" (printf "%s/tls.crt" (include "leasehold-proxy.backendTlsDir" $)) }}
{{- $_ := set $tls "keyFile" (printf "%s/tls.key" (include "leasehold-proxy.backendTlsDir" $)) }}
{{- end }}
{{- end }}
{{- $_ := set $backends "tls" $tls }}
{{- end }}
{{- end }}
{{- with .Values.backendSasl }}
{{- if .mechanism }}
{{- $_ := set $backends "sasl" (dict "mechanism" .mechanism "username" .username
  "passwordFile" (printf "%s/password" (include "leasehold-proxy.backendSaslDir" $))) }}
{{- end }}
{{- end }}
{{- $config := dict
  "listener" $listener
  "etcd" $etcd
  "backends" $backends
  "admin" (dict "host" $c.admin.host "port" (.Values.ports.admin | int) "routes" $c.admin.routes)
  "limits" $c.limits
  "routing" $c.routing
  "shutdown" $c.shutdown }}
{{- with .Values.presentation }}
{{- if eq .mode "node-per-owner" }}
{{- $presentation := dict "mode" .mode "firstNodeId" (.firstNodeId | int) "nodeCount" (.nodeCount | int) }}
{{- if .nodePortBase }}
{{- $_ := set $presentation "nodePortBase" (.nodePortBase | int) }}
{{- end }}
{{- if .nodeHostPattern }}
{{- $_ := set $presentation "nodeHostPattern" .nodeHostPattern }}
{{- end }}
{{- $_ := set $config "presentation" $presentation }}
{{- else if .produceOwnerDeadline }}
{{- $_ := set $config "presentation" (dict "mode" .mode "produceOwnerDeadline" .produceOwnerDeadline) }}
{{- end }}
{{- end }}
{{- if or .Values.authorization.aclsSecret .Values.authorization.aclsConfigMap }}
{{- $_ := set $config "authorization" (dict "aclsFile" (printf "%s/acls.yaml" (include "leasehold-proxy.aclsDir" .))) }}
{{- end }}
{{- if .Values.quotas.configMap }}
{{- $_ := set $config "quotas" (dict "file" (printf "%s/quotas.yaml" (include "leasehold-proxy.quotasDir" .)) "windowCount" .Values.quotas.windowCount "windowSize" .Values.quotas.windowSize) }}
{{- end }}
{{- if .Values.audit.enabled }}
{{- $file := ternary (printf "%s/%s" (include "leasehold-proxy.auditDir" .) .Values.audit.file) "-" (ne .Values.audit.file "") }}
{{- $_ := set $config "audit" (dict "file" $file "allowedReads" .Values.audit.allowedReads) }}
{{- end }}
{{- toYaml $config }}
{{- end }}

{{/* Refuses value combinations the schema cannot express. */}}
{{- define "leasehold-proxy.validate" -}}
{{- $drain := include "leasehold-proxy.durationSeconds" .Values.config.shutdown.drainTimeout | int }}
{{- $needed := add .Values.preStopSleepSeconds $drain }}
{{- if le (int .Values.terminationGracePeriodSeconds) (int $needed) }}
{{- fail (printf "terminationGracePeriodSeconds (%d) must exceed preStopSleepSeconds (%d) + config.shutdown.drainTimeout (%s = %ds), or pods are killed mid-drain" (int .Values.terminationGracePeriodSeconds) (int .Values.preStopSleepSeconds) .Values.config.shutdown.drainTimeout $drain) }}
{{- end }}
{{- if and .Values.autoscaling.enabled (lt (int .Values.autoscaling.maxReplicas) (int .Values.autoscaling.minReplicas)) }}
{{- fail (printf "autoscaling.maxReplicas (%d) must be at least autoscaling.minReplicas (%d)" (int .Values.autoscaling.maxReplicas) (int .Values.autoscaling.minReplicas)) }}
{{- end }}
{{- if eq (int .Values.ports.kafka) (int .Values.ports.admin) }}
{{- fail (printf "ports.kafka and ports.admin must differ (both are %d)" (int .Values.ports.kafka)) }}
{{- end }}
{{- with .Values.presentation }}
{{- if eq .mode "node-per-owner" }}
{{- if and (not .nodePortBase) (not .nodeHostPattern) }}
{{- fail "presentation.mode node-per-owner needs presentation.nodePortBase or presentation.nodeHostPattern, or every node would have the bootstrap address" }}
{{- end }}
{{- if .nodePortBase }}
{{- $first := int .nodePortBase }}
{{- $last := add $first (int .nodeCount) -1 }}
{{- if gt $last 65535 }}
{{- fail (printf "presentation node ports %d..%d go past 65535" $first $last) }}
{{- end }}
{{- range $name, $port := dict "ports.kafka" $.Values.ports.kafka "ports.admin" $.Values.ports.admin }}
{{- if and (ge (int $port) $first) (le (int $port) $last) }}
{{- fail (printf "presentation node ports %d..%d include %s (%d)" $first $last $name (int $port)) }}
{{- end }}
{{- end }}
{{- if and (eq $.Values.service.type "NodePort") (or (lt $first 30000) (gt $last 32767)) }}
{{- fail (printf "presentation node ports %d..%d must lie in 30000..32767 for a NodePort Service, which exposes them under the same numbers" $first $last) }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}

{{/* The node ports of the node-per-owner presentation, one "name port" line each (empty otherwise). */}}
{{- define "leasehold-proxy.nodePorts" -}}
{{- with .Values.presentation }}
{{- if and (eq .mode "node-per-owner") .nodePortBase }}
{{- range $i := until (int .nodeCount) }}
{{ printf "node-%d %d" (add (int $.Values.presentation.firstNodeId) $i) (add (int $.Values.presentation.nodePortBase) $i) }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}
