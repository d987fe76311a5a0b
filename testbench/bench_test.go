package testbench

import (
	"testing"

	"github.com/lhsim/lhsim/device"
	"github.com/lhsim/lhsim/experiment/rx"
)

// BenchmarkWorkload runs the benchmark workload (rx.Workload: messages of 16..256
// bytes back to back, LHS on) on each path and reports simulated cycles and messages per CPU
// second. `lhsim bench` prints the same comparison as a table or JSON.
func BenchmarkWorkload(b *testing.B) {
	const msgs = 20000
	paths := []struct {
		name string
		run  func() (rx.Speed, error)
	}{
		{"native", func() (rx.Speed, error) { return rx.BenchNative(msgs, 1) }},
		{"cgo", func() (rx.Speed, error) {
			return rx.BenchDevice(device.Config{Model: device.RTL}, msgs, 1, 1, msgs)
		}},
		{"gomodel", func() (rx.Speed, error) {
			return rx.BenchDevice(device.Config{Model: device.Go}, msgs, 1, 1, msgs)
		}},
	}
	for _, p := range paths {
		b.Run(p.name, func(b *testing.B) {
			var cycles uint64
			var cpu float64
			for i := 0; i < b.N; i++ {
				s, err := p.run()
				if err != nil {
					b.Fatal(err)
				}
				cycles += s.Cycles
				cpu += s.Seconds
			}
			b.ReportMetric(float64(cycles)/cpu, "cycles/cpu-s")
			b.ReportMetric(float64(msgs*b.N)/cpu, "msgs/cpu-s")
		})
	}
}
