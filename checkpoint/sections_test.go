package checkpoint_test

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/checkpoint"
)

// legacy writes a checkpoint the way the format was before sections: cycle, meta, board, run,
// SHA-256, nothing else.
func legacy(t *testing.T, cycle uint64, parts ...[]byte) []byte {
	var body []byte
	body = binary.AppendUvarint(body, cycle)
	for _, p := range parts {
		body = binary.AppendUvarint(body, uint64(len(p)))
		body = append(body, p...)
	}
	sum := sha256.Sum256(body)
	var buf bytes.Buffer
	buf.WriteString("lhsim checkpoint 1\n")
	z := gzip.NewWriter(&buf)
	_, err := z.Write(append(body, sum[:]...))
	require.NoError(t, err)
	require.NoError(t, z.Close())
	return buf.Bytes()
}

// A file written before sections existed loads as it did, with no sections; a file with no
// sections is written byte for byte as before.
func TestOldCheckpointsStillLoad(t *testing.T) {
	old := legacy(t, 77, []byte(`{"model":"go"}`), []byte("board"), []byte("run"))
	f, err := checkpoint.Decode(bytes.NewReader(old))
	require.NoError(t, err)
	require.Equal(t, uint64(77), f.Cycle)
	require.JSONEq(t, `{"model":"go"}`, string(f.Meta))
	require.Equal(t, []byte("board"), f.Board)
	require.Equal(t, []byte("run"), f.Run)
	require.Empty(t, f.Sections)

	var again bytes.Buffer
	require.NoError(t, f.Encode(&again))
	g, err := checkpoint.Decode(bytes.NewReader(again.Bytes()))
	require.NoError(t, err)
	require.Equal(t, f, g)
	// The compressed bytes depend on gzip's settings; what is inside must be the old layout.
	in := func(b []byte) []byte {
		z, err := gzip.NewReader(bytes.NewReader(b[len("lhsim checkpoint 1\n"):]))
		require.NoError(t, err)
		var out bytes.Buffer
		_, err = out.ReadFrom(z)
		require.NoError(t, err)
		return out.Bytes()
	}
	require.Equal(t, in(old), in(again.Bytes()))
}

// Sections round trip, in order; a checkpoint with a damaged section is refused with
// ErrFormat; kinds must be unique and named.
func TestCheckpointSections(t *testing.T) {
	f := &checkpoint.File{Meta: []byte(`{"kind":"ib"}`), Sections: []checkpoint.Section{
		{Kind: "ib/node/0", Data: []byte("zero")}, {Kind: "ib/node/1", Data: nil}, {Kind: "ib/run", Data: bytes.Repeat([]byte{7}, 5000)}}}
	var buf bytes.Buffer
	require.NoError(t, f.Encode(&buf))
	g, err := checkpoint.Decode(bytes.NewReader(buf.Bytes()))
	require.NoError(t, err)
	require.Len(t, g.Sections, 3)
	for i, s := range f.Sections {
		require.Equal(t, s.Kind, g.Sections[i].Kind)
		require.Equal(t, len(s.Data), len(g.Sections[i].Data))
		require.True(t, bytes.Equal(s.Data, g.Sections[i].Data))
	}
	d, ok := g.Section("ib/run")
	require.True(t, ok)
	require.Len(t, d, 5000)
	_, ok = g.Section("nothing")
	require.False(t, ok)

	for _, bad := range [][]checkpoint.Section{{{Kind: "", Data: []byte("x")}}, {{Kind: "a"}, {Kind: "a"}}} {
		require.ErrorContains(t, (&checkpoint.File{Sections: bad}).Encode(&bytes.Buffer{}), "section")
	}

	// Damage inside the sections, with a good checksum (a hand edit): the parts after the run
	// state must be whole sections.
	edit := func(tail []byte) []byte {
		body := binary.AppendUvarint(nil, 0)
		for range 3 {
			body = binary.AppendUvarint(body, 0)
		}
		body = append(body, tail...)
		sum := sha256.Sum256(body)
		var out bytes.Buffer
		out.WriteString("lhsim checkpoint 1\n")
		z := gzip.NewWriter(&out)
		_, err := z.Write(append(body, sum[:]...))
		require.NoError(t, err)
		require.NoError(t, z.Close())
		return out.Bytes()
	}
	for name, tail := range map[string][]byte{
		"count of zero":       {0},
		"count past the data": {9, 1, 'a'},
		"kind cut short":      {1, 5, 'a'},
		"data cut short":      {1, 1, 'a', 4, 1},
		"duplicate kinds":     {2, 1, 'a', 0, 1, 'a', 0},
		"empty kind":          {1, 0, 1, 'x'},
		"bytes after":         {1, 1, 'a', 0, 9},
	} {
		_, err := checkpoint.Decode(bytes.NewReader(edit(tail)))
		require.ErrorIs(t, err, checkpoint.ErrFormat, name)
	}
}
