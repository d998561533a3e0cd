package main

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSafetensorsRoundTrip(t *testing.T) {
	ts := map[string]hostTensor{
		"a":     {shape: []int{2, 3}, data: []float32{1, -2, 3.5, 0, 65504, -0.25}},
		"b.c":   {shape: []int{1}, data: []float32{1.0 / 3}},
		"empty": {shape: []int{0, 4}, data: []float32{}},
	}
	for _, tc := range []struct {
		dtype string
		want  map[string][]float32
	}{
		{"F32", map[string][]float32{"a": {1, -2, 3.5, 0, 65504, -0.25}, "b.c": {1.0 / 3}}},
		// 1/3 rounded to nearest even: F16 0x3555, BF16 0x3eab.
		{"F16", map[string][]float32{"a": {1, -2, 3.5, 0, 65504, -0.25}, "b.c": {0.333251953125}}},
		{"BF16", map[string][]float32{"a": {1, -2, 3.5, 0, 65536, -0.25}, "b.c": {0.333984375}}},
	} {
		t.Run(tc.dtype, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "x.safetensors")
			writeSafetensors(t, path, tc.dtype, ts)
			st, err := openSafetensors(path)
			require.NoError(t, err)
			defer st.Close()
			require.Equal(t, []string{"a", "b.c", "empty"}, st.names())
			for name, want := range tc.want {
				got, shape, err := st.float32s(name)
				require.NoError(t, err)
				require.Equal(t, ts[name].shape, shape)
				require.Equal(t, want, got, name)
			}
			got, shape, err := st.float32s("empty")
			require.NoError(t, err)
			require.Equal(t, []int{0, 4}, shape)
			require.Empty(t, got)
			_, _, err = st.float32s("nope")
			require.ErrorContains(t, err, `no tensor "nope"`)
		})
	}
}

func TestSafetensorsErrors(t *testing.T) {
	file := func(header string, data int) []byte {
		out := binary.LittleEndian.AppendUint64(nil, uint64(len(header)))
		return append(append(out, header...), make([]byte, data)...)
	}
	tests := []struct {
		name string
		raw  []byte
		msg  string
	}{
		{"too short", []byte{1, 2, 3}, "reading the header length"},
		{"header past the end", binary.LittleEndian.AppendUint64(nil, 1000), "header of 1000 bytes in a file of 8"},
		{"not json", file("{nope", 0), "header"},
		{"unknown dtype", file(`{"x":{"dtype":"I64","shape":[1],"data_offsets":[0,8]}}`, 8), `dtype "I64"`},
		{"range past the data", file(`{"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}`, 4), "spans bytes 0..8 of 4"},
		{"size and shape disagree", file(`{"x":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}`, 8), "8 bytes for 3 F32 elements"},
		{"negative dimension", file(`{"x":{"dtype":"F32","shape":[-1],"data_offsets":[0,0]}}`, 0), "shape [-1]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "bad.safetensors")
			require.NoError(t, os.WriteFile(path, tc.raw, 0o644))
			_, err := openSafetensors(path)
			require.ErrorContains(t, err, tc.msg)
		})
	}
	_, err := openSafetensors(filepath.Join(t.TempDir(), "absent"))
	require.Error(t, err)
}

func TestMainRuns(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.safetensors")
	writeSafetensors(t, path, "F32", randomWeights(smallConfig, 6))
	require.NoError(t, run([]string{"-weights", path, "-prompt-ids", "1,2,3", "-tokens", "4", "-backend", "cpu"}))
	require.NoError(t, run([]string{"-weights", path, "-prompt-len", "9", "-tokens", "2", "-backend", "cpu", "-warmup=false", "-runs", "3"}))
	for _, d := range []string{"bfloat16", "float16", "f32"} {
		require.NoError(t, run([]string{"-weights", path, "-prompt-ids", "1,2,3", "-tokens", "3", "-backend", "cpu", "-dtype", d}), d)
	}
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{}, "-weights is required"},
		{[]string{"-weights", path, "-backend", "cpu"}, "give -prompt-ids or -prompt-len"},
		{[]string{"-weights", path, "-backend", "cpu", "-prompt-ids", "1,x"}, `token id "x"`},
		{[]string{"-weights", path, "-backend", "cpu", "-prompt-len", "50", "-tokens", "1"}, "exceed the context"},
		{[]string{"-weights", path, "-backend", "cpu", "-prompt-len", "5", "-dtype", "int8"}, `-dtype "int8": want float32, float16 or bfloat16`},
	} {
		require.ErrorContains(t, run(tc.args), tc.msg, "%v", tc.args)
	}
}
