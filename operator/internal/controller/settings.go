package controller

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strconv"

	worldv1 "sharedworld.dev/operator/api/v1alpha1"
)

// Settings turns a World's spec into the environment the bulletin and
// governance read (services/bulletin Settings, governance's trigger).
// Empty fields are left out, so the chart's values stay in force.
func Settings(spec worldv1.WorldSpec) map[string]string {
	out := map[string]string{"WORLD_NAME": spec.Name}
	set := func(k, v string) {
		if v != "" {
			out[k] = v
		}
	}
	set("WORLD_FOUNDED", spec.Founded)
	set("WORLD_PHASE", spec.Phase)
	set("WORLD_NEXT_MILESTONE", spec.NextMilestone)
	set("WORLD_NOTE", spec.Note)
	set("WORLD_LOGIC_FLAG", spec.LogicFlag)
	if spec.ElectionTrigger > 0 {
		out["WORLD_ELECTION_TRIGGER"] = strconv.Itoa(int(spec.ElectionTrigger))
	}
	return out
}

// Hash identifies a set of settings: the annotation that rolls a
// Deployment when it changes.
func Hash(data map[string]string) string {
	keys := make([]string, 0, len(data))
	for k := range data {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	h := sha256.New()
	for _, k := range keys {
		h.Write([]byte(k + "=" + data[k] + "\n"))
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}
