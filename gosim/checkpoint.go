package gosim

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"
	"unsafe"
)

// Checkpoints. A Board saves everything a run changed (SO-DIMM contents and reads in flight,
// the source's queue, position and random generator, the host bus queues, counters, cycle,
// and the ports as last driven) together with its core's state; restored into a board built
// from the same configuration, the run goes on exactly as if it had never stopped.
//
// The Go models' state is encoded by walking their fields by reflection, unexported ones
// included, so a field added to a model is saved without anyone remembering to add it here; a
// field of a kind that cannot be saved (a func, a channel, an interface) makes MarshalState
// fail loudly, unless it is listed in skipFields with the reason it needs no saving.

// Stateful is a Core whose whole state can be saved and restored.
type Stateful interface {
	// MarshalState returns the state: everything that changes as the core runs.
	MarshalState() ([]byte, error)
	// UnmarshalState replaces the state with one MarshalState returned, from a core built
	// with the same parameters.
	UnmarshalState(data []byte) error
}

// ErrState is wrapped by errors about a state that does not fit where it is restored.
var ErrState = errors.New("checkpoint state does not fit")

// skipFields are fields not saved with their struct: the core, saved separately, and
// observers, which the caller registers again.
var skipFields = map[reflect.Type]map[string]bool{
	reflect.TypeOf(Board{}): {"core": true, "watch": true, "fast": true, "scratch": true, "onEvent": true, "onAdvance": true},
}

// MarshalState saves the board and its core.
func (b *Board) MarshalState() ([]byte, error) {
	cs, err := marshalCore(b.core)
	if err != nil {
		return nil, err
	}
	var e stateEncoder
	e.bytes(cs)
	if err := e.value(reflect.ValueOf(b).Elem(), "Board"); err != nil {
		return nil, err
	}
	return e.buf, nil
}

// UnmarshalState restores a state MarshalState returned into a board built with the same
// configuration and the same kind of core. Observers registered with OnCycle stay.
func (b *Board) UnmarshalState(data []byte) error {
	d := stateDecoder{buf: data}
	cs := d.bytes()
	if d.err != nil {
		return d.err
	}
	if err := unmarshalCore(b.core, cs); err != nil {
		return err
	}
	d.value(reflect.ValueOf(b).Elem(), "Board")
	return d.finish()
}

// marshalCore saves a core with its kind, so that it is restored only into the same kind.
func marshalCore(c Core) ([]byte, error) {
	s, ok := c.(Stateful)
	if !ok {
		return nil, fmt.Errorf("gosim: a %T cannot be checkpointed", c)
	}
	data, err := s.MarshalState()
	if err != nil {
		return nil, err
	}
	var e stateEncoder
	e.str(fmt.Sprintf("%T", c))
	e.bytes(data)
	return e.buf, nil
}

func unmarshalCore(c Core, data []byte) error {
	d := stateDecoder{buf: data}
	kind, state := d.str(), d.bytes()
	if err := d.finish(); err != nil {
		return err
	}
	if want := fmt.Sprintf("%T", c); kind != want {
		return fmt.Errorf("%w: the checkpoint holds a %s, the board has a %s", ErrState, kind, want)
	}
	s, ok := c.(Stateful)
	if !ok {
		return fmt.Errorf("gosim: a %T cannot be restored", c)
	}
	return s.UnmarshalState(state)
}

// MarshalState saves the golden model's registers and memories.
func (m *Model) MarshalState() ([]byte, error) {
	var e stateEncoder
	err := e.value(reflect.ValueOf(m).Elem(), "Model")
	return e.buf, err
}

// UnmarshalState restores the golden model; its parameters must match the saved model's. The
// state is decoded into a fresh model and taken only whole: one whose parameters, or the
// sizes and masks derived from them, differ from this model's (an edited file) is refused and
// changes nothing, since the clocked logic indexes its RAMs through those masks.
func (m *Model) UnmarshalState(data []byte) error {
	n, err := NewModel(m.p)
	if err != nil {
		return err
	}
	d := stateDecoder{buf: data}
	d.value(reflect.ValueOf(n).Elem(), "Model")
	if err := d.finish(); err != nil {
		return err
	}
	if n.p != m.p {
		return fmt.Errorf("%w: the checkpoint's model has %+v, this one %+v", ErrState, n.p, m.p)
	}
	if got, want := n.shape(), m.shape(); got != want {
		return fmt.Errorf("%w: the checkpoint's model is shaped %+v, its parameters make %+v", ErrState, got, want)
	}
	*m = *n
	return nil
}

// modelShape is what a model's parameters fix: the widths and RAM sizes its logic relies on.
type modelShape struct {
	idxW, winAW               uint
	entries, ram              uint32
	winBytes, rwin, wwinShort uint32
}

func (m *Model) shape() modelShape {
	s := modelShape{idxW: m.idxW, winAW: m.winAW, entries: m.rx.entries, ram: uint32(len(m.rx.ram)),
		winBytes: m.vec.winBytes, rwin: uint32(len(m.vec.rwin))}
	for _, w := range m.vec.wwin {
		if len(w) != len(m.vec.rwin) {
			s.wwinShort++
		}
	}
	return s
}

// MarshalState saves both cores, the cycle count and the first disagreement.
func (l *Lockstep) MarshalState() ([]byte, error) {
	a, err := marshalCore(l.A)
	if err != nil {
		return nil, err
	}
	b, err := marshalCore(l.B)
	if err != nil {
		return nil, err
	}
	var e stateEncoder
	e.bytes(a)
	e.bytes(b)
	e.uint(l.cycle)
	mismatch := ""
	if l.Mismatch != nil {
		mismatch = l.Mismatch.Error()
	}
	e.str(mismatch)
	return e.buf, nil
}

// UnmarshalState restores both cores.
func (l *Lockstep) UnmarshalState(data []byte) error {
	d := stateDecoder{buf: data}
	a, b, cycle, mismatch := d.bytes(), d.bytes(), d.uint(), d.str()
	if err := d.finish(); err != nil {
		return err
	}
	if err := unmarshalCore(l.A, a); err != nil {
		return err
	}
	if err := unmarshalCore(l.B, b); err != nil {
		return err
	}
	l.cycle = cycle
	l.Mismatch = nil
	if mismatch != "" {
		l.Mismatch = errors.New(mismatch)
	}
	return nil
}

// stateEncoder appends values in a compact binary form: varints for integers, raw bytes for
// byte arrays and slices, a presence byte before pointers and slices.
type stateEncoder struct{ buf []byte }

func (e *stateEncoder) uint(v uint64) { e.buf = binary.AppendUvarint(e.buf, v) }
func (e *stateEncoder) bytes(b []byte) {
	e.uint(uint64(len(b)))
	e.buf = append(e.buf, b...)
}
func (e *stateEncoder) str(s string) { e.bytes([]byte(s)) }

// value encodes v, which must be addressable; path names it in errors.
func (e *stateEncoder) value(v reflect.Value, path string) error {
	switch v.Kind() {
	case reflect.Bool:
		b := byte(0)
		if v.Bool() {
			b = 1
		}
		e.buf = append(e.buf, b)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		e.buf = binary.AppendVarint(e.buf, v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		e.uint(v.Uint())
	case reflect.String:
		e.str(v.String())
	case reflect.Array:
		return e.elems(v, path)
	case reflect.Slice:
		if v.IsNil() {
			e.uint(0)
			return nil
		}
		e.uint(uint64(v.Len()) + 1) // the length; 0 is nil
		return e.elems(v, path)
	case reflect.Pointer:
		if v.IsNil() {
			e.buf = append(e.buf, 0)
			return nil
		}
		e.buf = append(e.buf, 1)
		return e.value(v.Elem(), "*"+path)
	case reflect.Struct:
		t := v.Type()
		skip := skipFields[t]
		for i := 0; i < t.NumField(); i++ {
			if skip[t.Field(i).Name] {
				continue
			}
			if err := e.value(v.Field(i), path+"."+t.Field(i).Name); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("gosim: cannot checkpoint %s of kind %s (%s)", path, v.Kind(), v.Type())
	}
	return nil
}

// stateDecoder reads what stateEncoder wrote; the first error sticks.
type stateDecoder struct {
	buf []byte
	err error
}

func (d *stateDecoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: "+format, append([]any{ErrState}, args...)...)
	}
}

func (d *stateDecoder) uint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.buf)
	if n <= 0 {
		d.fail("truncated")
		return 0
	}
	d.buf = d.buf[n:]
	return v
}

func (d *stateDecoder) int() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.buf)
	if n <= 0 {
		d.fail("truncated")
		return 0
	}
	d.buf = d.buf[n:]
	return v
}

func (d *stateDecoder) raw(n uint64) []byte {
	if d.err != nil {
		return nil
	}
	if uint64(len(d.buf)) < n {
		d.fail("truncated")
		return nil
	}
	b := d.buf[:n:n]
	d.buf = d.buf[n:]
	return b
}

func (d *stateDecoder) bytes() []byte { return d.raw(d.uint()) }
func (d *stateDecoder) str() string   { return string(d.bytes()) }

func (d *stateDecoder) finish() error {
	if d.err == nil && len(d.buf) != 0 {
		d.fail("%d bytes left over", len(d.buf))
	}
	return d.err
}

// settable returns v in a form that can be set even when it is an unexported field: the
// decoder restores the models' private registers, as the encoder read them.
func settable(v reflect.Value) reflect.Value {
	if v.CanSet() {
		return v
	}
	return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
}

// value decodes into v, which must be addressable.
func (d *stateDecoder) value(v reflect.Value, path string) {
	if d.err != nil {
		return
	}
	v = settable(v)
	switch v.Kind() {
	case reflect.Bool:
		b := d.raw(1)
		if b != nil {
			v.SetBool(b[0] != 0)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		x := d.int()
		if v.OverflowInt(x) {
			d.fail("%s: %d overflows %s", path, x, v.Type())
			return
		}
		v.SetInt(x)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		x := d.uint()
		if v.OverflowUint(x) {
			d.fail("%s: %d overflows %s", path, x, v.Type())
			return
		}
		v.SetUint(x)
	case reflect.String:
		v.SetString(d.str())
	case reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			copy(v.Bytes(), d.raw(uint64(v.Len())))
			return
		}
		for i := 0; i < v.Len() && d.err == nil; i++ {
			d.value(v.Index(i), path)
		}
	case reflect.Slice:
		n := d.uint()
		if n == 0 {
			v.SetZero()
			return
		}
		n--
		if n > uint64(len(d.buf)) { // every element takes at least a byte
			d.fail("%s: %d elements in %d bytes", path, n, len(d.buf))
			return
		}
		s := reflect.MakeSlice(v.Type(), int(n), int(n))
		if v.Type().Elem().Kind() == reflect.Uint8 {
			copy(s.Bytes(), d.raw(n))
		} else {
			for i := 0; i < int(n) && d.err == nil; i++ {
				d.value(s.Index(i), path)
			}
		}
		v.Set(s)
	case reflect.Pointer:
		p := d.raw(1)
		if p == nil {
			return
		}
		if p[0] == 0 {
			v.SetZero()
			return
		}
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		d.value(v.Elem(), "*"+path)
	case reflect.Struct:
		t := v.Type()
		skip := skipFields[t]
		for i := 0; i < t.NumField() && d.err == nil; i++ {
			if skip[t.Field(i).Name] {
				continue
			}
			d.value(v.Field(i), path+"."+t.Field(i).Name)
		}
	default:
		d.fail("cannot restore %s of kind %s", path, v.Kind())
	}
}

var zeroChunk [chunkBytes]byte

// Digest is a SHA-256 of the memory's contents: every megabyte that is not all zeros, with
// its address. Two memories with the same bytes have the same digest, whichever megabytes
// each happened to allocate.
func (s *SODIMM) Digest() [32]byte {
	h := sha256.New()
	for i, c := range s.chunks {
		if c == nil || *c == zeroChunk {
			continue
		}
		var idx [8]byte
		binary.LittleEndian.PutUint64(idx[:], uint64(i))
		h.Write(idx[:])
		h.Write(c[:])
	}
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// MarshalBinary saves the generator's position.
func (r *Rand) MarshalBinary() ([]byte, error) {
	return binary.LittleEndian.AppendUint64(nil, r.s), nil
}

// UnmarshalBinary puts the generator back where MarshalBinary found it.
func (r *Rand) UnmarshalBinary(b []byte) error {
	if len(b) != 8 {
		return fmt.Errorf("%w: a generator state is 8 bytes, not %d", ErrState, len(b))
	}
	r.s = binary.LittleEndian.Uint64(b)
	return nil
}

// elems writes the elements of an array or slice: bytes as they are, anything else one by one.
func (e *stateEncoder) elems(v reflect.Value, path string) error {
	if v.Type().Elem().Kind() == reflect.Uint8 {
		e.buf = append(e.buf, v.Bytes()...)
		return nil
	}
	for i := 0; i < v.Len(); i++ {
		if err := e.value(v.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
			return err
		}
	}
	return nil
}
