package rx

import (
	"os"
	"strings"
)

// cpuName is the processor's model name where the system tells it (Linux), else "unknown CPU".
func cpuName() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	if name, ok := cpuModelName(string(b)); ok {
		return name
	}
	return "unknown CPU"
}

// cpuModelName is the first "model name" field of a /proc/cpuinfo text; ok is false if there
// is none.
func cpuModelName(cpuinfo string) (name string, ok bool) {
	for _, l := range strings.Split(cpuinfo, "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v), true
		}
	}
	return "", false
}
