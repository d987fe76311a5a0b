package checkpoint_test

import (
	"bytes"
	"testing"

	"github.com/lhsim/lhsim/checkpoint"
	"github.com/lhsim/lhsim/device"
	"github.com/lhsim/lhsim/experiment/rx"
)

// BenchmarkCheckpoint measures saving (state, compression, checksum) and restoring a board
// after the benchmark workload of 20000 messages (about 2.6 MB of tails in the SO-DIMM).
func BenchmarkCheckpoint(b *testing.B) {
	for _, model := range []string{"rtl", "go"} {
		dev, err := device.OpenLocal(device.Config{Model: device.Model(model)})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := rx.Workload(dev, 20000, 1); err != nil {
			b.Fatal(err)
		}
		board := dev.Board
		var file bytes.Buffer
		b.Run(model+"/save", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				f, err := checkpoint.Capture(board, nil, nil)
				if err != nil {
					b.Fatal(err)
				}
				file.Reset()
				if err := f.Encode(&file); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(len(f.Board)), "state-bytes")
			}
			b.ReportMetric(float64(file.Len()), "file-bytes")
		})
		b.Run(model+"/restore", func(b *testing.B) {
			fresh, err := openBoard(device.Config{Model: device.Model(model)})
			if err != nil {
				b.Fatal(err)
			}
			defer fresh.Close()
			for i := 0; i < b.N; i++ {
				f, err := checkpoint.Decode(bytes.NewReader(file.Bytes()))
				if err != nil {
					b.Fatal(err)
				}
				if err := f.Restore(fresh); err != nil {
					b.Fatal(err)
				}
			}
		})
		board.Close()
	}
}
