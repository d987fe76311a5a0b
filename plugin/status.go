package plugin

import (
	"fmt"
	"os"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// StatusEnv names the file the plugin maps to publish its progress. The harness reads the
// same page: it learns the cycle the RTL reached even when the process dies without a word,
// and its watchdog sees whether a long call still makes progress without asking over RPC.
const StatusEnv = "LHSIM_PLUGIN_STATUS"

const statusBytes = 4096

// statusPage is a shared mapping of one page: word 0 is the number of cycles the board has
// completed, word 1 the number of calls the plugin has started.
type statusPage struct {
	mem  []byte
	path string
}

// newStatusFile makes the harness's side of the page: a fresh file, mapped.
func newStatusFile() (*statusPage, error) {
	f, err := os.CreateTemp("", "lhsim-plugin-status-*")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := f.Truncate(statusBytes); err != nil {
		os.Remove(f.Name())
		return nil, err
	}
	p, err := mapStatus(f, f.Name())
	if err != nil {
		os.Remove(f.Name())
	}
	return p, err
}

// openStatusFile maps the page the harness made.
func openStatusFile(path string) (*statusPage, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return mapStatus(f, path)
}

func mapStatus(f *os.File, path string) (*statusPage, error) {
	mem, err := syscall.Mmap(int(f.Fd()), 0, statusBytes, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("plugin: mapping status page %s: %w", path, err)
	}
	return &statusPage{mem: mem, path: path}, nil
}

func (p *statusPage) word(i int) *uint64 { return (*uint64)(unsafe.Pointer(&p.mem[8*i])) }

// setCycle runs every cycle in the plugin, whose board goroutine alone writes the word: a
// plain aligned store (atomic on the machines lhsim runs on) costs a fraction of a locked one.
func (p *statusPage) setCycle(c uint64) { *p.word(0) = c }
func (p *statusPage) cycle() uint64     { return atomic.LoadUint64(p.word(0)) }
func (p *statusPage) startCall()        { atomic.AddUint64(p.word(1), 1) }
func (p *statusPage) calls() uint64     { return atomic.LoadUint64(p.word(1)) }

// close unmaps the page; remove also deletes the file (the harness's side).
func (p *statusPage) close(remove bool) {
	if p == nil || p.mem == nil {
		return
	}
	syscall.Munmap(p.mem)
	p.mem = nil
	if remove {
		os.Remove(p.path)
	}
}
