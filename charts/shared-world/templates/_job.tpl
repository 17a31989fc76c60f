{{/*
The pod of a one-shot run of a service's job (dict root, service, job,
component, resources): the service's image, configuration and secrets,
with the job's name as the only argument.
*/}}
{{- define "sw.jobPod" -}}
{{- $root := .root }}
metadata:
  labels:
    {{- include "sw.podLabels" . | nindent 4 }}
spec:
  {{- include "sw.podCommon" . | nindent 2 }}
  restartPolicy: Never
  containers:
    - name: {{ .job }}
      image: {{ include "sw.image" (dict "root" $root "name" .service) }}
      imagePullPolicy: {{ $root.Values.image.pullPolicy }}
      args: [{{ .job | quote }}]
      envFrom:
        {{- include "sw.envFrom" (dict "root" $root "name" .service) | nindent 8 }}
      env:
        {{- include "sw.env" (dict "root" $root "name" .service) | nindent 8 }}
      resources:
        {{- toYaml .resources | nindent 8 }}
      securityContext:
        {{- toYaml $root.Values.securityContext | nindent 8 }}
      volumeMounts:
        {{- include "sw.volumeMounts" (dict "root" $root "service" .service) | nindent 8 }}
{{- end }}
