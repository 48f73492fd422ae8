// Package kubernetes tests the Kubernetes manifests of fabricsim's sweeps: each is decoded
// strictly into the real API types (k8s.io/api batch/v1 and core/v1; an unknown field is an
// error) and checked for what the sweep relies on. It is a module of its own, so that the
// simulator's module does not depend on k8s.io.
package kubernetes

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// decode reads file strictly into v, as the API server reads a manifest: YAML to JSON
// (duplicate keys are errors), then JSON with case-sensitive field names where an unknown
// field is an error.
func decode(t *testing.T, file string, v any) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := decodeStrict(data, v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}

func decodeStrict(data []byte, v any) error {
	js, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		return err
	}
	strict, err := kjson.UnmarshalStrict(js, v)
	if err != nil {
		return err
	}
	return errors.Join(strict...)
}

func job(t *testing.T, file string) *batchv1.Job {
	t.Helper()
	var j batchv1.Job
	decode(t, file, &j)
	if j.APIVersion != "batch/v1" || j.Kind != "Job" {
		t.Fatalf("%s: %s %s, want batch/v1 Job", file, j.APIVersion, j.Kind)
	}
	if n := len(j.Spec.Template.Spec.Containers); n != 1 {
		t.Fatalf("%s: %d containers, want 1", file, n)
	}
	if p := j.Spec.Template.Spec.RestartPolicy; p != corev1.RestartPolicyNever {
		t.Errorf("%s: restartPolicy %q: a retried shard must be a new pod (Never)", file, p)
	}
	return &j
}

// command is the container's shell command with its environment variables expanded
// (JOB_COMPLETION_INDEX left as it is).
func command(t *testing.T, j *batchv1.Job) string {
	t.Helper()
	c := j.Spec.Template.Spec.Containers[0]
	if len(c.Command) != 3 || c.Command[0] != "/bin/sh" || c.Command[1] != "-c" {
		t.Fatalf("%s: command %q, want [/bin/sh -c SCRIPT]", j.Name, c.Command)
	}
	env := map[string]string{}
	for _, e := range c.Env {
		env[e.Name] = e.Value
	}
	return os.Expand(c.Command[2], func(name string) string {
		if v, ok := env[name]; ok {
			return v
		}
		return "$" + name
	})
}

// checkVolume checks that the job mounts the shared claim at /results.
func checkVolume(t *testing.T, j *batchv1.Job, claim string) {
	t.Helper()
	spec := j.Spec.Template.Spec
	var vol string
	for _, v := range spec.Volumes {
		if v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == claim {
			vol = v.Name
		}
	}
	if vol == "" {
		t.Fatalf("%s: no volume of the claim %s", j.Name, claim)
	}
	for _, m := range spec.Containers[0].VolumeMounts {
		if m.Name == vol && m.MountPath == "/results" && !m.ReadOnly {
			return
		}
	}
	t.Errorf("%s: the volume %s is not mounted writable at /results", j.Name, vol)
}

func TestManifests(t *testing.T) {
	var pvc corev1.PersistentVolumeClaim
	decode(t, "pvc.yaml", &pvc)
	if pvc.Kind != "PersistentVolumeClaim" || len(pvc.Spec.AccessModes) != 1 || pvc.Spec.AccessModes[0] != corev1.ReadWriteMany {
		t.Errorf("pvc.yaml: %s with access modes %v, want a ReadWriteMany PersistentVolumeClaim (pods on many nodes write it)", pvc.Kind, pvc.Spec.AccessModes)
	}

	sweep := job(t, "sweep-job.yaml")
	spec := sweep.Spec
	if spec.CompletionMode == nil || *spec.CompletionMode != batchv1.IndexedCompletion {
		t.Errorf("sweep-job.yaml: completionMode %v, want Indexed (the index is the shard)", spec.CompletionMode)
	}
	if spec.Completions == nil || spec.Parallelism == nil || *spec.Completions < 1 || *spec.Parallelism < 1 || *spec.Parallelism > *spec.Completions {
		t.Fatalf("sweep-job.yaml: completions %v, parallelism %v: want 1 <= parallelism <= completions", spec.Completions, spec.Parallelism)
	}
	cmd := command(t, sweep)
	m := regexp.MustCompile(`--shard "\$JOB_COMPLETION_INDEX/([0-9]+)"`).FindStringSubmatch(cmd)
	if m == nil {
		t.Fatalf("sweep-job.yaml: the command does not take its shard from JOB_COMPLETION_INDEX: %s", cmd)
	}
	if n, _ := strconv.Atoi(m[1]); int32(n) != *spec.Completions {
		t.Errorf("sweep-job.yaml: --shard I/%d but completions %d: every point is run only when N = completions", n, *spec.Completions)
	}
	if !strings.HasPrefix(cmd, "exec fabricsim sweep ") || !strings.Contains(cmd, `-o "/results/incast-buffer/shard-$JOB_COMPLETION_INDEX"`) {
		t.Errorf("sweep-job.yaml: want fabricsim sweep writing each shard to its own directory on the volume: %s", cmd)
	}
	checkVolume(t, sweep, pvc.Name)

	merge := job(t, "merge-job.yaml")
	if c := merge.Spec.Completions; c != nil && *c != 1 {
		t.Errorf("merge-job.yaml: completions %d, want 1", *c)
	}
	if mode := merge.Spec.CompletionMode; mode != nil && *mode != batchv1.NonIndexedCompletion {
		t.Errorf("merge-job.yaml: completionMode %s, want NonIndexed", *mode)
	}
	cmd = command(t, merge)
	if want := `exec fabricsim merge /results/"incast-buffer"/shard-* -o "/results/incast-buffer/all"`; cmd != want {
		t.Errorf("merge-job.yaml: command\n  %s\nwant\n  %s", cmd, want)
	}
	checkVolume(t, merge, pvc.Name)
}

// TestStrictDecodingRefusesUnknownFields: the checks above mean something only if a
// misspelt field (in any case) or a field given twice fails to decode.
func TestStrictDecodingRefusesUnknownFields(t *testing.T) {
	data, err := os.ReadFile("sweep-job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ from, to, want string }{
		{"completionMode:", "completionmode:", `unknown field "spec.completionmode"`},
		{"completionMode:", "completionMod:", `unknown field "spec.completionMod"`},
		{"  parallelism: 4\n", "  parallelism: 4\n  parallelism: 2\n", `key "parallelism" already set`},
	} {
		var j batchv1.Job
		err := decodeStrict([]byte(strings.Replace(string(data), c.from, c.to, 1)), &j)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s -> %s decoded with error %v, want %q", c.from, c.to, fmt.Sprint(err), c.want)
		}
	}
}
