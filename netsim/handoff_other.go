//go:build !linux

package netsim

// coresWanted cannot be read here: a waiter polls up to its bound every time.
func coresWanted() bool { return false }
