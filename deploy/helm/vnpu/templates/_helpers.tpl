{{/* The prefix of every object's name. */}}
{{- define "vnpu.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "vnpu.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* Selector labels of one component: include "vnpu.selector" (list . "scheduler") */}}
{{- define "vnpu.selector" -}}
app.kubernetes.io/name: {{ (index . 0).Chart.Name }}
app.kubernetes.io/instance: {{ (index . 0).Release.Name }}
app.kubernetes.io/component: {{ index . 1 }}
{{- end -}}

{{- define "vnpu.image" -}}
{{ required "image.repository is required: the registry path you pushed the vNPU image to (docs/install.md, The image)" .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{/* The environment of every Java container: the JVM sizes its heap from the memory limit. */}}
{{- define "vnpu.javaEnv" -}}
- name: JAVA_TOOL_OPTIONS
  value: {{ .Values.javaToolOptions | quote }}
{{- end -}}

{{/* The scheduler's signing key (a Secret it makes) and the public keys (a ConfigMap it keeps). */}}
{{- define "vnpu.signingSecret" -}}
{{- printf "%s-signing" (include "vnpu.fullname" .) -}}
{{- end -}}
{{- define "vnpu.verifyingKeys" -}}
{{- printf "%s-verifying-keys" (include "vnpu.fullname" .) -}}
{{- end -}}

{{/* The scheduler Service's address, for the scheduler configurations. */}}
{{- define "vnpu.schedulerUrl" -}}
http://{{ include "vnpu.schedulerHost" . }}:{{ .Values.scheduler.port }}
{{- end -}}
{{- define "vnpu.schedulerHost" -}}
{{ include "vnpu.fullname" . }}-scheduler.{{ .Release.Namespace }}.svc
{{- end -}}
{{/* Where kube-scheduler calls the extender: over mutual TLS unless scheduler.tls.enabled is off. */}}
{{- define "vnpu.kubeSchedulerUrl" -}}
{{- if .Values.scheduler.tls.enabled -}}
https://{{ include "vnpu.schedulerHost" . }}:{{ .Values.scheduler.tls.port }}
{{- else -}}
{{ include "vnpu.schedulerUrl" . }}
{{- end -}}
{{- end -}}
{{- define "vnpu.extenderTlsConfig" -}}
{{- if .Values.scheduler.tls.enabled -}}
{caFile: /etc/kubernetes/vnpu-extender-tls/ca.crt, certFile: /etc/kubernetes/vnpu-extender-tls/client.crt, keyFile: /etc/kubernetes/vnpu-extender-tls/client.key}
{{- else -}}
null
{{- end -}}
{{- end -}}
{{/* The extender's CA, server and client certificates, made by the scheduler (never rendered). */}}
{{- define "vnpu.extenderTlsSecret" -}}
{{- printf "%s-extender-tls" (include "vnpu.fullname" .) -}}
{{- end -}}

{{/* The init container that puts the shim of the node's architecture on the host: copied beside,
then renamed, so containers that already map the old shim keep their file. An image without that
architecture's shim stops here, before any container could preload a shim it cannot load. */}}
{{- define "vnpu.shimInstaller" -}}
- name: install-shim
  image: {{ include "vnpu.image" . }}
  imagePullPolicy: {{ .Values.image.pullPolicy }}
  command:
    - sh
    - -c
    - >-
      shim=/usr/local/vnpu/lib/$(uname -m)/libvnpu.so;
      if [ ! -f "$shim" ]; then
      echo "this image has no shim for $(uname -m) (it has: $(ls /usr/local/vnpu/lib)); build it for this platform or with -Pmulti-arch (docs/install.md)" >&2;
      exit 1; fi;
      cp "$shim" /host-shim/.libvnpu.so.new && mv /host-shim/.libvnpu.so.new /host-shim/libvnpu.so
  resources:
    requests: {cpu: 10m, memory: 16Mi}
    limits: {cpu: 100m, memory: 64Mi}
  volumeMounts:
    - {name: shim, mountPath: /host-shim}
{{- end -}}

{{/* Whether the device plugin runs: enabled, and DRA not chosen instead. Whether the extender
runs: enabled, and without DRA or with DRA placement (it then ranks nodes for claim pods only). */}}
{{- define "vnpu.devicePluginOn" -}}
{{- if and .Values.devicePlugin.enabled (not .Values.dra.enabled) }}true{{ end -}}
{{- end -}}
{{- define "vnpu.schedulerOn" -}}
{{- if and .Values.scheduler.enabled (or (not .Values.dra.enabled) .Values.dra.placement) }}true{{ end -}}
{{- end -}}


{{/* The Ascend driver on the host, as the node agents need it (DCMI, npu-smi) and as Ascend's own
device plugin mounts it: the driver directory, the driver's other files, and the library path that
finds libdcmi.so and the libraries beside it. Also what the device plugin mounts into NPU
containers, so it must see them to hand them out. */}}
{{- define "vnpu.driverEnv" -}}
- name: LD_LIBRARY_PATH
  value: {{ printf "%s/lib64:%s/lib64/driver:%s/lib64/common:/usr/local/dcmi" .Values.devicePlugin.driverDir .Values.devicePlugin.driverDir .Values.devicePlugin.driverDir | quote }}
{{- end -}}
{{- define "vnpu.driverMounts" -}}
- {name: driver, mountPath: {{ .Values.devicePlugin.driverDir }}, readOnly: true}
{{- range $i, $path := .Values.devicePlugin.hostDriverFiles }}
- {name: driver-file-{{ $i }}, mountPath: {{ $path }}, readOnly: true}
{{- end }}
{{- end -}}
{{- define "vnpu.driverVolumes" -}}
- {name: driver, hostPath: {path: {{ .Values.devicePlugin.driverDir }}}}
{{- range $i, $path := .Values.devicePlugin.hostDriverFiles }}
- {name: driver-file-{{ $i }}, hostPath: {path: {{ $path }}}}
{{- end }}
{{- end -}}
