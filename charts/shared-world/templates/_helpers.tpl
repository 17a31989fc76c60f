{{/* Names. */}}
{{- define "sw.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "sw.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 40 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 40 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* The resource name of one component: <fullname>-<component>. */}}
{{- define "sw.component" -}}
{{- printf "%s-%s" (include "sw.fullname" .root) .name }}
{{- end }}

{{/*
A name of at most max characters ending in suffix (dict root, suffix,
max): <fullname>-<suffix>, or when that is too long a shortened fullname
and a hash of it before the suffix (alerts match the suffix). CronJob
names may have 52 characters (their Jobs add 11), Job names 63 (the
job-name label of their pods).
*/}}
{{- define "sw.limitedName" -}}
{{- $full := include "sw.fullname" .root }}
{{- $name := printf "%s-%s" $full .suffix }}
{{- if le (len $name) (int .max) }}{{ $name }}
{{- else }}
{{- printf "%s-%s-%s" (trunc (int (sub (sub .max (len .suffix)) 10)) $full | trimSuffix "-") (sha256sum $full | trunc 8) .suffix }}
{{- end }}
{{- end }}

{{- define "sw.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "sw.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: shared-world
{{- end }}

{{/* Selector labels of one component (dict root, name). */}}
{{- define "sw.selector" -}}
app.kubernetes.io/name: {{ include "sw.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .name }}
{{- end }}

{{- define "sw.image" -}}
{{- printf "%s/%s:%s" .root.Values.image.repository .name (default .root.Chart.AppVersion .root.Values.image.tag) }}
{{- end }}

{{- define "sw.secretName" -}}
{{- default (printf "%s-secrets" (include "sw.fullname" .)) .Values.secrets.existingSecret }}
{{- end }}

{{- define "sw.mongoSecretName" -}}
{{- default (printf "%s-secrets" (include "sw.fullname" .)) .Values.mongodb.existingSecret }}
{{- end }}

{{- define "sw.mongoSecretKey" -}}
{{- if .Values.mongodb.existingSecret }}{{ .Values.mongodb.existingSecretKey }}{{ else }}mongodb-uri{{ end }}
{{- end }}

{{/* The identity provider addresses: the development provider's when it is on and none is set. */}}
{{- define "sw.idpKeysUrl" -}}
{{- if .Values.identityProvider.keysUrl }}{{ .Values.identityProvider.keysUrl }}
{{- else if .Values.identityProvider.development }}http://{{ include "sw.fullname" . }}-identity:{{ .Values.service.port }}/dev/idp/keys
{{- end }}
{{- end }}

{{/*
Every service refuses to start without a provider to trust (exit 2), so an
install without one is refused while rendering, naming the values to set.
*/}}
{{- define "sw.requireIdentityProvider" -}}
{{- $p := .Values.identityProvider }}
{{- if not (or .Values.secrets.providerKeys .Values.secrets.existingSecret $p.keysUrl $p.remoteVerify $p.development) }}
{{- fail "no identity provider is configured, so no agent could register: set identityProvider.keysUrl (the provider's key document), secrets.providerKeys (kid=base64key,...), or identityProvider.remoteVerify with identityProvider.verifyUrl; or, to try the world out, identityProvider.development=true (anyone can register: never in production)" }}
{{- end }}
{{- end }}

{{- define "sw.idpRevocationsUrl" -}}
{{- if .Values.identityProvider.revocationsUrl }}{{ .Values.identityProvider.revocationsUrl }}
{{- else if .Values.identityProvider.development }}http://{{ include "sw.fullname" . }}-identity:{{ .Values.service.port }}/dev/idp/revocations
{{- end }}
{{- end }}

{{/*
The environment of a service's containers (dict root, name): the common
ConfigMap, the world ConfigMap (the bulletin's and governance's settings;
the operator's ConfigMap after it, so a World resource wins), the secrets,
then what the service's own template adds (sw.env.<name>).
*/}}
{{- define "sw.envFrom" -}}
- configMapRef:
    name: {{ include "sw.fullname" .root }}-config
- configMapRef:
    name: {{ include "sw.fullname" .root }}-world
{{- if and (has .name (list "bulletin" "governance")) .root.Values.operator.enabled }}
- configMapRef:
    name: {{ include "sw.fullname" .root }}-world-operator
    optional: true
{{- end }}
{{- end }}

{{- define "sw.env" -}}
{{- $root := .root }}
- name: WORLD_MONGO_URI
  valueFrom:
    secretKeyRef:
      name: {{ include "sw.mongoSecretName" $root }}
      key: {{ include "sw.mongoSecretKey" $root }}
- name: WORLD_AMBASSADOR_TOKEN
  valueFrom:
    secretKeyRef:
      name: {{ include "sw.secretName" $root }}
      key: {{ $root.Values.secrets.keys.ambassadorToken }}
- name: WORLD_IDP_KEYS
  valueFrom:
    secretKeyRef:
      name: {{ include "sw.secretName" $root }}
      key: {{ $root.Values.secrets.keys.providerKeys }}
      optional: true
{{- include (printf "sw.env.%s" (.component | default .name)) $root }}
{{- with (.values | default (index $root.Values.services .name)).extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/*
The labels of a pod (dict root, component): the chart's, then
defaults.podLabels (which never replace the chart's own).
*/}}
{{- define "sw.podLabels" -}}
{{- $own := include "sw.labels" .root | fromYaml }}
{{- $_ := set $own "app.kubernetes.io/component" .component }}
{{- toYaml (merge $own .root.Values.defaults.podLabels) }}
{{- end }}

{{/* The volume mounts of a service's containers (dict root, service): /tmp, then the extra ones. */}}
{{- define "sw.volumeMounts" -}}
- name: tmp
  mountPath: /tmp
{{- with concat .root.Values.defaults.extraVolumeMounts ((index .root.Values.services .service).extraVolumeMounts | default list) }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* The pod-level settings every pod shares (dict root, service, component). */}}
{{- define "sw.podCommon" -}}
{{- $root := .root }}
{{- if .serviceAccount }}
serviceAccountName: {{ .serviceAccount }}
automountServiceAccountToken: true
{{- else }}
serviceAccountName: {{ include "sw.fullname" .root }}
automountServiceAccountToken: false
{{- end }}
enableServiceLinks: false
{{- with .root.Values.imagePullSecrets }}
imagePullSecrets:
{{- range . }}
  - name: {{ . }}
{{- end }}
{{- end }}
securityContext:
  {{- toYaml .root.Values.podSecurityContext | nindent 2 }}
{{- with .root.Values.defaults.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .root.Values.defaults.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .root.Values.defaults.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .root.Values.defaults.priorityClassName }}
priorityClassName: {{ . }}
{{- end }}
{{- with .root.Values.defaults.topologySpreadConstraints }}
{{- /* A constraint without a labelSelector spreads the pods of its own component. */}}
{{- $selector := dict "matchLabels" (include "sw.selector" (dict "root" $root "name" $.component) | fromYaml) }}
topologySpreadConstraints:
{{- range . }}
  - {{- toYaml (ternary . (merge (dict "labelSelector" $selector) .) (hasKey . "labelSelector")) | nindent 4 }}
{{- end }}
{{- end }}
volumes:
  - name: tmp
    emptyDir:
      sizeLimit: 64Mi
{{- with concat .root.Values.defaults.extraVolumes ((index .root.Values.services .service).extraVolumes | default list) }}
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/* The service table by name: {"<name>": {prefixes, body_limit_bytes, jobs, ...}}. */}}
{{- define "sw.table" -}}
{{- $out := dict }}
{{- range .Files.Get "files/services.json" | fromJsonArray }}
{{- $_ := set $out .name . }}
{{- end }}
{{- toJson $out }}
{{- end }}
