package rx

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCPUModelName(t *testing.T) {
	const info = "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Processor\n" +
		"\nprocessor\t: 1\nmodel name\t: Intel(R) Xeon(R) Processor\n"
	name, ok := cpuModelName(info)
	require.True(t, ok)
	require.Equal(t, "Intel(R) Xeon(R) Processor", name)
	_, ok = cpuModelName("processor\t: 0\nFeatures\t: fp asimd\n")
	require.False(t, ok)
	require.NotEmpty(t, cpuName())
}
