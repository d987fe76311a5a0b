// Command lhsim-plugin serves the receive path to lhsim over go-plugin: the far end of device.Remote.
package main

// lhsim-plugin serves the receive path (the Verilated RTL, the Go model or both in
// lockstep, on a board with the SO-DIMM and network models) to the lhsim harness over
// hashicorp/go-plugin: the far end of device.Remote. The harness starts it; run by hand it
// only prints its build identity with -version. See docs/plugin.md.

import (
	"flag"
	"fmt"

	"github.com/lhsim/lhsim/device"
)

func main() {
	version := flag.Bool("version", false, "print the build identity and exit")
	flag.Parse()
	if *version {
		fmt.Println(device.BuildID())
		return
	}
	device.Serve()
}
