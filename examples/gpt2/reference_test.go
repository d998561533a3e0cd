package main

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"testing"

	"github.com/anygpu/gpu/tensor"
	"github.com/stretchr/testify/require"
)

// hostTensor is a named weight on the host.
type hostTensor struct {
	shape []int
	data  []float32
}

// writeSafetensors writes ts to path in dtype ("F32", "F16" or "BF16"),
// by the format's definition: an 8-byte little-endian header length, the
// JSON header (names sorted, padded with spaces to 8 bytes), the data.
func writeSafetensors(t testing.TB, path, dtype string, ts map[string]hostTensor) {
	t.Helper()
	names := make([]string, 0, len(ts))
	for n := range ts {
		names = append(names, n)
	}
	sort.Strings(names)
	header := map[string]any{"__metadata__": map[string]string{"format": "pt"}}
	var data []byte
	for _, n := range names {
		h := ts[n]
		begin := len(data)
		for _, v := range h.data {
			switch dtype {
			case "F32":
				data = binary.LittleEndian.AppendUint32(data, math.Float32bits(v))
			case "F16":
				data = binary.LittleEndian.AppendUint16(data, tensor.Float16FromFloat32(v))
			case "BF16":
				data = binary.LittleEndian.AppendUint16(data, tensor.BFloat16FromFloat32(v))
			}
		}
		header[n] = map[string]any{"dtype": dtype, "shape": h.shape, "data_offsets": []int{begin, len(data)}}
	}
	hdr, err := json.Marshal(header)
	require.NoError(t, err)
	for len(hdr)%8 != 0 {
		hdr = append(hdr, ' ')
	}
	out := binary.LittleEndian.AppendUint64(nil, uint64(len(hdr)))
	out = append(append(out, hdr...), data...)
	require.NoError(t, os.WriteFile(path, out, 0o644))
}

// randomWeights is a GPT-2 of shape c with seeded random weights, large
// enough that the logits differ clearly, under Hugging Face's names.
func randomWeights(c Config, seed uint64) map[string]hostTensor {
	rng := rand.New(rand.NewPCG(seed, seed+1))
	ts := map[string]hostTensor{}
	add := func(name string, mean, std float64, shape ...int) {
		n := 1
		for _, s := range shape {
			n *= s
		}
		d := make([]float32, n)
		for i := range d {
			d[i] = float32(mean + std*rng.NormFloat64())
		}
		ts["transformer."+name] = hostTensor{shape: shape, data: d}
	}
	E := c.Embd
	add("wte.weight", 0, 0.3, c.Vocab, E)
	add("wpe.weight", 0, 0.1, c.Positions, E)
	for l := range c.Layers {
		p := fmt.Sprintf("h.%d.", l)
		add(p+"ln_1.weight", 1, 0.1, E)
		add(p+"ln_1.bias", 0, 0.05, E)
		add(p+"attn.c_attn.weight", 0, 0.15, E, 3*E)
		add(p+"attn.c_attn.bias", 0, 0.05, 3*E)
		add(p+"attn.c_proj.weight", 0, 0.1, E, E)
		add(p+"attn.c_proj.bias", 0, 0.05, E)
		add(p+"ln_2.weight", 1, 0.1, E)
		add(p+"ln_2.bias", 0, 0.05, E)
		add(p+"mlp.c_fc.weight", 0, 0.1, E, 4*E)
		add(p+"mlp.c_fc.bias", 0, 0.05, 4*E)
		add(p+"mlp.c_proj.weight", 0, 0.05, 4*E, E)
		add(p+"mlp.c_proj.bias", 0, 0.05, E)
	}
	add("ln_f.weight", 1, 0.1, E)
	add("ln_f.bias", 0, 0.05, E)
	return ts
}

// referenceLogits is GPT-2's forward pass in float64, written from the
// architecture's definition with no cache: the logits [T][vocab] of every
// position of tokens (causal attention over the positions before it).
func referenceLogits(c Config, w map[string]hostTensor, tokens []int32) [][]float64 {
	get := func(name string) []float64 {
		h, ok := w["transformer."+name]
		if !ok {
			panic("no weight " + name)
		}
		out := make([]float64, len(h.data))
		for i, v := range h.data {
			out[i] = float64(v)
		}
		return out
	}
	E, H, T := c.Embd, c.Heads, len(tokens)
	D := E / H
	eps := c.Eps
	if eps == 0 {
		eps = 1e-5
	}
	layerNorm := func(x []float64, g, b []float64) []float64 {
		mean, v := 0.0, 0.0
		for _, a := range x {
			mean += a
		}
		mean /= float64(len(x))
		for _, a := range x {
			v += (a - mean) * (a - mean)
		}
		v /= float64(len(x))
		out := make([]float64, len(x))
		for i, a := range x {
			out[i] = (a-mean)/math.Sqrt(v+eps)*g[i] + b[i]
		}
		return out
	}
	linear := func(x, wt, b []float64, out int) []float64 { // Conv1D: wt [in out]
		y := make([]float64, out)
		for j := range out {
			s := b[j]
			for i := range x {
				s += x[i] * wt[i*out+j]
			}
			y[j] = s
		}
		return y
	}
	wte, wpe := get("wte.weight"), get("wpe.weight")
	x := make([][]float64, T)
	for t, id := range tokens {
		x[t] = make([]float64, E)
		for i := range E {
			x[t][i] = wte[int(id)*E+i] + wpe[t*E+i]
		}
	}
	for l := range c.Layers {
		p := fmt.Sprintf("h.%d.", l)
		qkv := make([][]float64, T)
		for t := range T {
			qkv[t] = linear(layerNorm(x[t], get(p+"ln_1.weight"), get(p+"ln_1.bias")), get(p+"attn.c_attn.weight"), get(p+"attn.c_attn.bias"), 3*E)
		}
		for t := range T {
			att := make([]float64, E)
			for h := range H {
				s := make([]float64, t+1)
				m := math.Inf(-1)
				for j := 0; j <= t; j++ {
					for d := range D {
						s[j] += qkv[t][h*D+d] * qkv[j][E+h*D+d]
					}
					s[j] /= math.Sqrt(float64(D))
					m = math.Max(m, s[j])
				}
				sum := 0.0
				for j := range s {
					s[j] = math.Exp(s[j] - m)
					sum += s[j]
				}
				for d := range D {
					for j := range s {
						att[h*D+d] += s[j] / sum * qkv[j][2*E+h*D+d]
					}
				}
			}
			o := linear(att, get(p+"attn.c_proj.weight"), get(p+"attn.c_proj.bias"), E)
			for i := range E {
				x[t][i] += o[i]
			}
		}
		for t := range T {
			f := linear(layerNorm(x[t], get(p+"ln_2.weight"), get(p+"ln_2.bias")), get(p+"mlp.c_fc.weight"), get(p+"mlp.c_fc.bias"), 4*E)
			for i, v := range f {
				f[i] = 0.5 * v * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(v+0.044715*v*v*v)))
			}
			o := linear(f, get(p+"mlp.c_proj.weight"), get(p+"mlp.c_proj.bias"), E)
			for i := range E {
				x[t][i] += o[i]
			}
		}
	}
	head := wte
	if h, ok := w["lm_head.weight"]; ok { // an untied head
		head = make([]float64, len(h.data))
		for i, v := range h.data {
			head[i] = float64(v)
		}
	}
	logits := make([][]float64, T)
	for t := range T {
		xf := layerNorm(x[t], get("ln_f.weight"), get("ln_f.bias"))
		logits[t] = make([]float64, c.Vocab)
		for v := range c.Vocab {
			for i := range E {
				logits[t][v] += xf[i] * head[v*E+i]
			}
		}
	}
	return logits
}

// requireLogits checks got against want row by row: |got - want| ≤
// rel·max|want| + 1e-6 (relative to the row's largest logit: logits near 0
// have no relative precision).
func requireLogits(t *testing.T, want [][]float64, got []float32, rel float64, what string) {
	t.Helper()
	V := len(want[0])
	require.Len(t, got, len(want)*V, what)
	for r, row := range want {
		scale := 0.0
		for _, v := range row {
			scale = math.Max(scale, math.Abs(v))
		}
		for j, w := range row {
			g := float64(got[r*V+j])
			require.LessOrEqual(t, math.Abs(g-w), rel*scale+1e-6, "%s: row %d logit %d = %v, want %v (row max %v)", what, r, j, g, w, scale)
		}
	}
}

// argmax64 is the index of the largest value and its lead over the next.
func argmax64(row []float64) (int, float64) {
	best, second := 0, math.Inf(-1)
	for i, v := range row {
		if v > row[best] {
			second = row[best]
			best = i
		} else if i != best && v > second {
			second = v
		}
	}
	return best, row[best] - second
}
