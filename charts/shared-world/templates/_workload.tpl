{{/*
Settings that are valid one by one but not together: a pod must outlive
its drain delay (after SIGTERM it keeps serving that long, then finishes
its requests; the kubelet kills it when the grace period ends).
*/}}
{{- define "sw.checks" -}}
{{- $d := .Values.defaults }}
{{- if le (int $d.terminationGracePeriodSeconds) (int $d.drainDelaySeconds) }}
{{- fail (printf "defaults.terminationGracePeriodSeconds (%d) must exceed defaults.drainDelaySeconds (%d): after SIGTERM a pod keeps serving for the drain delay, then finishes its requests, and is killed when the grace period ends; raise the grace period or lower the delay" (int $d.terminationGracePeriodSeconds) (int $d.drainDelaySeconds)) }}
{{- end }}
{{- end }}

{{/*
One workload of the world (dict root, name; optional component, values,
serviceAccount, admin): its Deployment, Service, HorizontalPodAutoscaler
(when its values enable autoscaling) and PodDisruptionBudget. name is the
service (its image, binary and settings); component names the workload
when a service runs as several (the bulletin's readers are "bulletin",
its aggregator "bulletin-aggregator", with values
services.bulletin.aggregator). Every Deployment rolls by starting a new
pod before stopping an old one (maxUnavailable 0): none is ever short of
its ready replicas during a rollout. admin: the pods serve no public
route, only health and metrics.
*/}}
{{- define "sw.workload" -}}
{{- include "sw.checks" .root }}
{{- $root := .root }}
{{- $name := .name }}
{{- $component := .component | default .name }}
{{- $v := .values | default (index $root.Values.services $name) }}
{{- $hpa := and $v.autoscaling $v.autoscaling.enabled }}
{{- $replicas := int $v.replicas }}
{{- if $hpa }}{{ $replicas = int $v.autoscaling.minReplicas }}{{ end }}
{{- $full := include "sw.component" (dict "root" $root "name" $component) }}
{{- $sel := dict "root" $root "name" $component }}
{{- $pod := dict "root" $root "service" $name "component" $component "serviceAccount" .serviceAccount }}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ $full }}
  labels:
    {{- include "sw.labels" $root | nindent 4 }}
    app.kubernetes.io/component: {{ $component }}
spec:
  {{- if not $hpa }}
  replicas: {{ $v.replicas }}
  {{- end }}
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxUnavailable: 0
      maxSurge: 1
  revisionHistoryLimit: 5
  selector:
    matchLabels:
      {{- include "sw.selector" $sel | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "sw.podLabels" $pod | nindent 8 }}
      annotations:
        checksum/config: {{ include (print $root.Template.BasePath "/config.yaml") $root | sha256sum }}
        checksum/secret: {{ include "sw.secretData" $root | sha256sum }}
        {{- with $root.Values.defaults.podAnnotations }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    spec:
      {{- include "sw.podCommon" $pod | nindent 6 }}
      terminationGracePeriodSeconds: {{ $root.Values.defaults.terminationGracePeriodSeconds }}
      containers:
        - name: {{ $name }}
          image: {{ include "sw.image" . }}
          imagePullPolicy: {{ $root.Values.image.pullPolicy }}
          ports:
            - name: http
              containerPort: 8080
            - name: admin
              containerPort: 9090
          envFrom:
            {{- include "sw.envFrom" . | nindent 12 }}
          env:
            {{- include "sw.env" (dict "root" $root "name" $name "component" $component "values" $v) | nindent 12 }}
          startupProbe:
            httpGet: {path: /healthz, port: admin}
            periodSeconds: 2
            failureThreshold: {{ div $root.Values.probes.startupTimeoutSeconds 2 }}
          livenessProbe:
            httpGet: {path: /healthz, port: admin}
            periodSeconds: {{ $root.Values.probes.livenessPeriodSeconds }}
            failureThreshold: {{ $root.Values.probes.livenessFailureThreshold }}
          readinessProbe:
            httpGet: {path: /readyz, port: admin}
            periodSeconds: {{ $root.Values.probes.readinessPeriodSeconds }}
          resources:
            {{- toYaml $v.resources | nindent 12 }}
          securityContext:
            {{- toYaml $root.Values.securityContext | nindent 12 }}
          volumeMounts:
            {{- include "sw.volumeMounts" $pod | nindent 12 }}
---
apiVersion: v1
kind: Service
metadata:
  name: {{ $full }}
  labels:
    {{- include "sw.labels" $root | nindent 4 }}
    app.kubernetes.io/component: {{ $component }}
spec:
  type: {{ $root.Values.service.type }}
  selector:
    {{- include "sw.selector" $sel | nindent 4 }}
  ports:
    - name: http
      port: {{ $root.Values.service.port }}
      targetPort: http
    - name: admin
      port: {{ $root.Values.service.adminPort }}
      targetPort: admin
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ $full }}
  labels:
    {{- include "sw.labels" $root | nindent 4 }}
    app.kubernetes.io/component: {{ $component }}
spec:
  {{- /* A budget a single pod (or minAvailable as many as there are) cannot meet would block every node drain. */}}
  {{- if or (and (not (kindIs "string" $v.minAvailable)) (le $replicas (int $v.minAvailable))) (le $replicas 1) }}
  maxUnavailable: 1
  {{- else }}
  minAvailable: {{ $v.minAvailable }}
  {{- end }}
  selector:
    matchLabels:
      {{- include "sw.selector" $sel | nindent 6 }}
{{- if $hpa }}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: {{ $full }}
  labels:
    {{- include "sw.labels" $root | nindent 4 }}
    app.kubernetes.io/component: {{ $component }}
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: {{ $full }}
  minReplicas: {{ $v.autoscaling.minReplicas }}
  maxReplicas: {{ $v.autoscaling.maxReplicas }}
  metrics:
    - type: Resource
      resource:
        name: cpu
        target:
          type: Utilization
          averageUtilization: {{ $v.autoscaling.targetCPUUtilizationPercentage }}
{{- end }}
{{- if $root.Values.networkPolicy.enabled }}
---
{{ include "sw.networkPolicy" (dict "root" $root "name" $component "api" (not .admin) "admin" .admin "kubeAPI" .kubeAPI) }}
{{- end }}
{{- end }}

{{/*
The NetworkPolicy of one component (dict root, name, api): the API port
from the ingress controller (identity's also from the world's own pods),
the admin port from monitoring; out to DNS, MongoDB, Kafka and identity.
*/}}
{{- define "sw.networkPolicy" -}}
{{- $root := .root }}
{{- $np := $root.Values.networkPolicy }}
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: {{ include "sw.component" . }}
  labels:
    {{- include "sw.labels" $root | nindent 4 }}
    app.kubernetes.io/component: {{ .name }}
spec:
  podSelector:
    matchLabels:
      {{- include "sw.selector" . | nindent 6 }}
  policyTypes: [Ingress, Egress]
  ingress:
  {{- if or .api .admin }}
  {{- if .api }}
    - ports:
        - port: http
      from:
        {{- toYaml $np.ingressFrom | nindent 8 }}
        {{- if eq .name "identity" }}
        - podSelector:
            matchLabels:
              app.kubernetes.io/instance: {{ $root.Release.Name }}
              app.kubernetes.io/part-of: shared-world
        {{- end }}
        {{- if and (eq .name "bulletin") $root.Values.operator.enabled }}
        - podSelector:
            matchLabels:
              {{- include "sw.selector" (dict "root" $root "name" "operator") | nindent 14 }}
        {{- end }}
        {{- if and (eq .name "bulletin") $np.ingressFrom $root.Values.tests.enabled }}
        - podSelector:
            matchLabels:
              {{- include "sw.selector" (dict "root" $root "name" "helm-test") | nindent 14 }}
        {{- end }}
  {{- end }}
    - ports:
        - port: admin
      from:
        {{- include "sw.peers" (dict "root" $root "peers" $np.metricsFrom) | nindent 8 }}
  {{- end }}
  egress:
    - ports:
        - {port: 53, protocol: UDP}
        - {port: 53, protocol: TCP}
    - ports:
      {{- range $np.mongodbPorts }}
        - port: {{ . }}
      {{- end }}
      {{- with $np.mongodbTo }}
      to:
        {{- toYaml . | nindent 8 }}
      {{- end }}
    - ports:
      {{- range $np.kafkaPorts }}
        - port: {{ . }}
      {{- end }}
      {{- with $np.kafkaTo }}
      to:
        {{- toYaml . | nindent 8 }}
      {{- end }}
    - ports:
        - port: 8080
      to:
        - podSelector:
            matchLabels:
              {{- include "sw.selector" (dict "root" $root "name" "identity") | nindent 14 }}
    {{- with .kubeAPI }}
    - ports:
      {{- range . }}
        - port: {{ . }}
      {{- end }}
    {{- end }}
    {{- with $np.extraEgress }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
{{- end }}

{{/*
Peers allowed in (dict root, peers): the given ones and the `helm test`
pod. No peers given means anyone, which adding the test pod would narrow.
*/}}
{{- define "sw.peers" -}}
{{- if and .peers .root.Values.tests.enabled }}
{{- toYaml (append .peers (dict "podSelector" (dict "matchLabels" (include "sw.selector" (dict "root" .root "name" "helm-test") | fromYaml)))) }}
{{- else }}
{{- toYaml .peers }}
{{- end }}
{{- end }}
