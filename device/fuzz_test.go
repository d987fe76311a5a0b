package device

import (
	"bytes"
	"encoding/gob"
	"reflect"
	"strings"
	"testing"
)

// wireCalls pairs each call the plugin serves (but Open, which would build a device) with
// its argument type, for FuzzWire's seeds.
var wireCalls = []struct {
	method string
	args   any
}{
	{"Flush", &Args{Pending: []Op{{Kind: opInject, Data: []byte("0123456789abcdef")}, {Kind: opWriteReg, Addr: 4, Val: 3}}}},
	{"Stats", &Args{}},
	{"Close", &Args{}},
	{"ReadReg", &RegArgs{Addr: 0x20}},
	{"ReadBlock", &BlockArgs{Addr: 0x80000, N: 64}},
	{"MemRead", &BlockArgs{Addr: 1 << 20, N: 32}},
	{"MemWrite", &BlockArgs{Addr: 16, Data: []byte("xyz")}},
	{"Run", &RunArgs{N: 10}},
	{"RunUntilIdle", &RunArgs{N: 1000}},
	{"Receive", &ReceiveArgs{Batch: Batch{Data: []byte("abcdefgh"), Lens: []uint32{3, 5}}, N: 2, Limit: 100}},
	{"Feed", &ReceiveArgs{Batch: Batch{Data: []byte("abcd"), Lens: []uint32{4}}, Mode: modeFeed, Limit: 100}},
	{"Exchange", &ExchangeArgs{ReceiveArgs: ReceiveArgs{Batch: Batch{Data: []byte("ab"), Lens: []uint32{9}}}, Submit: 1, Collect: 1}},
}

// FuzzWire feeds the plugin protocol's decoders anything: the bytes are a call's gob-encoded
// arguments as they reach the plugin process (decoded and served by a server with no device,
// which must answer or refuse, never panic), and the same bytes decoded as every type that
// crosses the channel (a reply a broken plugin sends the harness included); a batch that
// decodes is cut into messages, which must lie inside its data or be refused.
// Replay a failure: go test -run 'FuzzWire/<file>' ./device/ (under testdata/fuzz/FuzzWire).
func FuzzWire(f *testing.F) {
	for i, c := range wireCalls {
		var b bytes.Buffer
		if err := gob.NewEncoder(&b).Encode(c.args); err != nil {
			f.Fatal(err)
		}
		f.Add(byte(i), b.Bytes())
	}
	f.Fuzz(func(t *testing.T, which byte, data []byte) {
		c := wireCalls[int(which)%len(wireCalls)]
		s := &server{done: map[uint64]*job{}}
		rep, err := s.Serve(c.method, gob.NewDecoder(bytes.NewReader(data)))
		if err == nil {
			st := reflect.ValueOf(rep).Elem().FieldByName("Status").Interface().(Status)
			if c.method != "Exchange" && !strings.Contains(st.Err, "no device") {
				t.Fatalf("%s with no device answered %+v\ninput %x", c.method, rep, data)
			}
		}
		s.Idle() // runs what an Exchange queued: refused, with no device
		for _, w := range wireTypes {
			v := reflect.New(reflect.TypeOf(w))
			if gob.NewDecoder(bytes.NewReader(data)).Decode(v.Interface()) != nil {
				continue
			}
			var b *Batch
			switch a := v.Interface().(type) {
			case *ReceiveArgs:
				b = &a.Batch
			case *ExchangeArgs:
				b = &a.Batch
			case *Batch:
				b = a
			}
			if b == nil {
				continue
			}
			msgs, err := b.unpack()
			if err != nil {
				continue
			}
			total := 0
			for i, m := range msgs {
				if len(m) != int(b.Lens[i]) {
					t.Fatalf("message %d has %d bytes, its length says %d", i, len(m), b.Lens[i])
				}
				total += len(m)
			}
			if total > len(b.Data) {
				t.Fatalf("batch of %d bytes cut into %d", len(b.Data), total)
			}
		}
	})
}
