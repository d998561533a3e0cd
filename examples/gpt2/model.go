package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/tensor"
)

// Config is a GPT-2 model's shape, with Hugging Face's config.json names.
type Config struct {
	Layers    int     `json:"n_layer"`
	Heads     int     `json:"n_head"`
	Embd      int     `json:"n_embd"`
	Vocab     int     `json:"vocab_size"`
	Positions int     `json:"n_positions"`
	Eps       float64 `json:"layer_norm_epsilon"`
}

// loadConfig reads a config.json.
func loadConfig(path string) (Config, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("config: %w", err)
	}
	var c Config
	if err := json.Unmarshal(raw, &c); err != nil {
		return Config{}, fmt.Errorf("config %s: %w", path, err)
	}
	return c, nil
}

// inferConfig is the shape the weights imply: the vocabulary and width from
// the token embedding, the context from the position embedding, the layers
// from the block names; heads of 64 (every GPT-2 size has them).
func inferConfig(st *safetensors) (Config, error) {
	wte, ok := st.entries[prefix(st)+"wte.weight"]
	if !ok || len(wte.Shape) != 2 {
		return Config{}, errors.New("gpt2: no token embedding wte.weight of rank 2")
	}
	wpe, ok := st.entries[prefix(st)+"wpe.weight"]
	if !ok || len(wpe.Shape) != 2 {
		return Config{}, errors.New("gpt2: no position embedding wpe.weight of rank 2")
	}
	c := Config{Vocab: wte.Shape[0], Embd: wte.Shape[1], Positions: wpe.Shape[0], Heads: max(1, wte.Shape[1]/64), Eps: 1e-5}
	for {
		if _, ok := st.entries[fmt.Sprintf("%sh.%d.ln_1.weight", prefix(st), c.Layers)]; !ok {
			break
		}
		c.Layers++
	}
	return c, nil
}

// prefix is "transformer." when the file holds GPT2LMHeadModel's names,
// "" for GPT2Model's.
func prefix(st *safetensors) string {
	if _, ok := st.entries["transformer.wte.weight"]; ok {
		return "transformer."
	}
	return ""
}

// block is one transformer block's weights (Conv1D weights are [in out])
// and its KV cache.
type block struct {
	ln1g, ln1b, attnW, attnB, projW, projB *tensor.Tensor
	ln2g, ln2b, fcW, fcB, mlpW, mlpB       *tensor.Tensor
	kc, vc                                 *tensor.Tensor // [heads ctx dim]
}

// maxPartBytes is the most bytes one tensor of the model takes: the
// vocabulary-sized matrices (the token embedding, 147 MiB in GPT-2 124M in
// float32) are uploaded in parts of whole rows no larger, because some
// backends bind at most 128 MiB to a kernel argument (WebGPU's default
// limit, lavapipe's). CUDA binds any buffer: there the matrices stay whole
// (partBytesFor), and a step makes one lookup and one product of them, not
// one per part and the ops that join the parts.
var maxPartBytes = defaultPartBytes

// defaultPartBytes is maxPartBytes unless a test cuts the vocabulary finer
// (which then applies on CUDA too, so the parts' path is tested there).
const defaultPartBytes = 128 << 20

// partBytesFor is the most bytes a vocabulary part takes on dev.
func partBytesFor(dev *gpu.Device) int {
	if dev.Backend() == "cuda" && maxPartBytes == defaultPartBytes {
		return math.MaxInt
	}
	return maxPartBytes
}

// vocabParts is a [vocab embd] matrix in parts of whole rows, and the first
// row of each.
type vocabParts struct {
	parts []*tensor.Tensor
	first []int
	heads []*tensor.Tensor // each part transposed, [embd rows]: a view
}

// Model is GPT-2 resident on a device: weights, KV caches.
type Model struct {
	Cfg    Config
	DType  tensor.DType // of the weights, caches and activations
	dev    *gpu.Device
	wte    vocabParts
	head   *vocabParts    // the LM head: &wte (tied) or lm_head.weight's
	wpe    *tensor.Tensor // [ctx embd]
	lnfG   *tensor.Tensor
	lnfB   *tensor.Tensor
	blocks []block
	owned  []*tensor.Tensor
	step   *decodeStep // Generate's captured decode step, made at its first use
	// NoGraph makes Generate launch every decode step op by op, with the
	// position on the host, instead of replaying a captured step.
	NoGraph bool
}

// Load uploads the weights of a safetensors file (F32, F16 or BF16; the
// latter two converted to float32 on the host) to dev, with Hugging Face's
// GPT-2 names (with or without the "transformer." prefix), and allocates
// the KV caches for cfg.Positions positions: a model computing in float32.
func Load(ctx context.Context, dev *gpu.Device, st *safetensors, cfg Config) (*Model, error) {
	return LoadAs(ctx, dev, st, cfg, tensor.Float32)
}

// LoadAs is Load for a model computing in dtype d: Float32, Float16 or
// BFloat16. The weights are rounded to d on the host as they are uploaded
// (exactly kept when the file holds d already), the KV caches and every
// activation are of d, and each op computes in float32 and rounds its
// result to d, as PyTorch does for a model in that dtype.
func LoadAs(ctx context.Context, dev *gpu.Device, st *safetensors, cfg Config, d tensor.DType) (*Model, error) {
	if d != tensor.Float32 && d != tensor.Float16 && d != tensor.BFloat16 {
		return nil, fmt.Errorf("gpt2: dtype %s; want float32, float16 or bfloat16", d)
	}
	if cfg.Layers <= 0 || cfg.Heads <= 0 || cfg.Embd <= 0 || cfg.Embd%cfg.Heads != 0 || cfg.Vocab <= 0 || cfg.Positions <= 0 {
		return nil, fmt.Errorf("gpt2: config %+v: want positive sizes and n_embd a multiple of n_head", cfg)
	}
	if cfg.Eps == 0 {
		cfg.Eps = 1e-5
	}
	if err := tensor.Prepare(ctx, dev); err != nil { // the ops compile under ctx
		return nil, fmt.Errorf("gpt2: %w", err)
	}
	m := &Model{Cfg: cfg, DType: d, dev: dev}
	p := prefix(st)
	get := func(name string, shape ...int) (*tensor.Tensor, error) {
		data, got, err := st.float32s(name)
		if err != nil {
			return nil, err
		}
		if fmt.Sprint(got) != fmt.Sprint(shape) {
			return nil, fmt.Errorf("gpt2: %s has shape %v; the config wants %v", name, got, shape)
		}
		t, err := tensor.FromFloat32(ctx, dev, d, data, shape...)
		if err != nil {
			return nil, fmt.Errorf("gpt2: uploading %s: %w", name, err)
		}
		m.owned = append(m.owned, t)
		return t, nil
	}
	fail := func(err error) (*Model, error) {
		_ = m.Close()
		return nil, err
	}
	E, V := cfg.Embd, cfg.Vocab
	var err error
	getParts := func(name string) (vocabParts, error) {
		var vp vocabParts
		data, got, err := st.float32s(name)
		if err != nil {
			return vp, err
		}
		if fmt.Sprint(got) != fmt.Sprint([]int{V, E}) {
			return vp, fmt.Errorf("gpt2: %s has shape %v; the config wants [%d %d]", name, got, V, E)
		}
		rows := max(1, partBytesFor(dev)/(d.Size()*E))
		for lo := 0; lo < V; lo += rows {
			hi := min(V, lo+rows)
			t, err := tensor.FromFloat32(ctx, dev, d, data[lo*E:hi*E], hi-lo, E)
			if err != nil {
				return vp, fmt.Errorf("gpt2: uploading %s: %w", name, err)
			}
			m.owned = append(m.owned, t)
			h, err := t.Transpose(0, 1)
			if err != nil {
				return vp, err
			}
			m.owned = append(m.owned, h)
			vp.parts, vp.first, vp.heads = append(vp.parts, t), append(vp.first, lo), append(vp.heads, h)
		}
		return vp, nil
	}
	if m.wte, err = getParts(p + "wte.weight"); err != nil {
		return fail(err)
	}
	m.head = &m.wte
	if _, ok := st.entries["lm_head.weight"]; ok {
		head, err := getParts("lm_head.weight")
		if err != nil {
			return fail(err)
		}
		m.head = &head
	}
	if m.wpe, err = get(p+"wpe.weight", cfg.Positions, E); err != nil {
		return fail(err)
	}
	if m.lnfG, err = get(p+"ln_f.weight", E); err != nil {
		return fail(err)
	}
	if m.lnfB, err = get(p+"ln_f.bias", E); err != nil {
		return fail(err)
	}
	D := E / cfg.Heads
	for l := range cfg.Layers {
		var b block
		h := fmt.Sprintf("%sh.%d.", p, l)
		for _, w := range []struct {
			dst   **tensor.Tensor
			name  string
			shape []int
		}{
			{&b.ln1g, "ln_1.weight", []int{E}}, {&b.ln1b, "ln_1.bias", []int{E}},
			{&b.attnW, "attn.c_attn.weight", []int{E, 3 * E}}, {&b.attnB, "attn.c_attn.bias", []int{3 * E}},
			{&b.projW, "attn.c_proj.weight", []int{E, E}}, {&b.projB, "attn.c_proj.bias", []int{E}},
			{&b.ln2g, "ln_2.weight", []int{E}}, {&b.ln2b, "ln_2.bias", []int{E}},
			{&b.fcW, "mlp.c_fc.weight", []int{E, 4 * E}}, {&b.fcB, "mlp.c_fc.bias", []int{4 * E}},
			{&b.mlpW, "mlp.c_proj.weight", []int{4 * E, E}}, {&b.mlpB, "mlp.c_proj.bias", []int{E}},
		} {
			if *w.dst, err = get(h+w.name, w.shape...); err != nil {
				return fail(err)
			}
		}
		for _, c := range []**tensor.Tensor{&b.kc, &b.vc} {
			if *c, err = tensor.Zeros(ctx, dev, d, cfg.Heads, cfg.Positions, D); err != nil {
				return fail(fmt.Errorf("gpt2: KV cache: %w", err))
			}
			m.owned = append(m.owned, *c)
		}
		m.blocks = append(m.blocks, b)
	}
	return m, nil
}

// Close frees the model's tensors.
func (m *Model) Close() error {
	first := m.step.close()
	m.step = nil
	for _, t := range m.owned {
		if err := t.Close(); err != nil && first == nil {
			first = err
		}
	}
	m.owned = nil
	return first
}

// scope collects a forward pass's intermediate tensors to close together.
type scope struct{ ts []*tensor.Tensor }

func (s *scope) keep(t *tensor.Tensor, err error) (*tensor.Tensor, error) {
	if err == nil {
		s.ts = append(s.ts, t)
	}
	return t, err
}

func (s *scope) close() {
	for _, t := range s.ts {
		_ = t.Close()
	}
}

// Forward runs the tokens ids (Int32 [T], on the device) at positions
// pos..pos+T-1, appending their keys and values to the caches, and returns
// the logits [T vocab] (all true) or those of the last position [1 vocab].
func (m *Model) Forward(ids *tensor.Tensor, pos int, all bool) (*tensor.Tensor, error) {
	return m.forward(ids, position{at: pos}, all)
}

// position is where a forward pass's tokens start: at, known on the host,
// or, when dev is not nil, the Int32 [1] on the device that the ops read
// (the caches' appends, attention and the position embedding), so that
// the pass's launches do not depend on it and one capture of it serves
// every position.
type position struct {
	at  int
	dev *tensor.Tensor
}

// forward is Forward at p.
func (m *Model) forward(ids *tensor.Tensor, p position, all bool) (*tensor.Tensor, error) {
	pos := p.at
	s := scope{ts: make([]*tensor.Tensor, 0, 14*len(m.blocks)+8+2*len(m.wte.parts)+len(m.head.heads))}
	defer s.close()
	c := m.Cfg
	T := ids.Len()
	if T == 0 || pos+T > c.Positions || p.dev != nil && T != 1 {
		return nil, fmt.Errorf("gpt2: %d tokens at position %d in a context of %d", T, pos, c.Positions)
	}
	E, H := c.Embd, c.Heads
	D := E / H
	eps := float32(c.Eps)
	tok, err := s.keep(tensor.EmbeddingFrom(m.wte.parts[0], ids, 0))
	if err != nil {
		return nil, err
	}
	for i := 1; i < len(m.wte.parts); i++ { // ids outside a part give zeros: the parts add up
		e, err := s.keep(tensor.EmbeddingFrom(m.wte.parts[i], ids, m.wte.first[i]))
		if err != nil {
			return nil, err
		}
		if tok, err = s.keep(tensor.Add(tok, e)); err != nil {
			return nil, err
		}
	}
	var pe *tensor.Tensor
	if p.dev != nil {
		pe, err = s.keep(tensor.Embedding(m.wpe, p.dev))
	} else {
		pe, err = s.keep(m.wpe.Slice(0, pos, pos+T))
	}
	if err != nil {
		return nil, err
	}
	x, err := s.keep(tensor.Add(tok, pe))
	if err != nil {
		return nil, err
	}
	split := func(qkv *tensor.Tensor, i int) (*tensor.Tensor, error) {
		v, err := s.keep(qkv.Slice(1, i*E, (i+1)*E))
		if err != nil {
			return nil, err
		}
		return s.keep(v.Reshape(T, H, D))
	}
	for _, b := range m.blocks {
		h, err := s.keep(tensor.LayerNorm(x, b.ln1g, b.ln1b, eps))
		if err != nil {
			return nil, err
		}
		qkv, err := s.keep(tensor.Linear(h, b.attnW, b.attnB))
		if err != nil {
			return nil, err
		}
		q, err := split(qkv, 0)
		if err != nil {
			return nil, err
		}
		k, err := split(qkv, 1)
		if err != nil {
			return nil, err
		}
		v, err := split(qkv, 2)
		if err != nil {
			return nil, err
		}
		scale := float32(1 / math.Sqrt(float64(D)))
		var a *tensor.Tensor
		if p.dev != nil {
			if err := tensor.AppendKVPairAt(b.kc, b.vc, k, v, p.dev); err != nil {
				return nil, err
			}
			a, err = s.keep(tensor.AttentionAt(q, b.kc, b.vc, p.dev, scale))
		} else {
			if err := tensor.AppendKVPair(b.kc, b.vc, k, v, pos); err != nil {
				return nil, err
			}
			a, err = s.keep(tensor.Attention(q, b.kc, b.vc, pos, scale))
		}
		if err != nil {
			return nil, err
		}
		a2, err := s.keep(a.Reshape(T, E))
		if err != nil {
			return nil, err
		}
		// The residual joins the projection: with a matrix library, one op
		// fewer than Linear and Add.
		if x, err = s.keep(tensor.LinearAdd(a2, b.projW, b.projB, x)); err != nil {
			return nil, err
		}
		h2, err := s.keep(tensor.LayerNorm(x, b.ln2g, b.ln2b, eps))
		if err != nil {
			return nil, err
		}
		// GELU joins the product: with a matrix library, its epilogue.
		g, err := s.keep(tensor.LinearGELU(h2, b.fcW, b.fcB))
		if err != nil {
			return nil, err
		}
		if x, err = s.keep(tensor.LinearAdd(g, b.mlpW, b.mlpB, x)); err != nil {
			return nil, err
		}
	}
	if !all && T > 1 {
		if x, err = s.keep(x.Slice(0, T-1, T)); err != nil {
			return nil, err
		}
	}
	xf, err := s.keep(tensor.LayerNorm(x, m.lnfG, m.lnfB, eps))
	if err != nil {
		return nil, err
	}
	if len(m.head.heads) == 1 {
		return tensor.MatMul(xf, m.head.heads[0])
	}
	logits := make([]*tensor.Tensor, len(m.head.heads))
	for i, h := range m.head.heads {
		if logits[i], err = s.keep(tensor.MatMul(xf, h)); err != nil {
			return nil, err
		}
	}
	return tensor.Concat(-1, logits...)
}

// Timing is a generation's wall time: the prefill (the prompt's forward pass
// to its first token on the host) and the decode steps after it, with the
// decode steps' launches (kernels and matrix-library products, the
// device's Stats.KernelLaunches, a replayed step's included) and graph
// launches (Stats.GraphLaunches). Capture is the part of Decode spent
// capturing the decode step (zero when the model had it already).
type Timing struct {
	PromptTokens   int
	Prefill        time.Duration
	DecodeTokens   int
	Decode         time.Duration
	DecodeLaunches int64
	DecodeGraphs   int64
	Capture        time.Duration
}

// Generate runs the prompt, then greedily picks n tokens (n ≥ 1): the
// first from the prompt's last logits, each next from a decode step of one
// token over the KV cache. The picked id stays on the device as the next
// step's input; the only transfers are the prompt's upload and one 4-byte
// read per token. observe, when not nil, sees each
// step's logits (step 0: the prompt's, all positions; step i: decode step
// i's [1 vocab]) before the token is picked, and may read them (more
// transfers).
//
// Unless NoGraph is set, the decode steps after the first are one captured
// step (gpu.Graph) replayed per token: the step reads its token and
// position on the device, writes the next token there and advances the
// position, so the host only launches the graph and reads the token. The
// model captures the step once, at its first generation of three tokens or
// more, and keeps it.
func (m *Model) Generate(ctx context.Context, prompt []int32, n int, observe func(step int, logits *tensor.Tensor) error) (_ []int32, tm Timing, err error) {
	if len(prompt) == 0 || n < 1 {
		return nil, tm, fmt.Errorf("gpt2: a prompt of %d tokens and %d to generate; want at least 1 of each", len(prompt), n)
	}
	if len(prompt)+n-1 > m.Cfg.Positions {
		return nil, tm, fmt.Errorf("gpt2: %d prompt tokens and %d more exceed the context of %d", len(prompt), n-1, m.Cfg.Positions)
	}
	if m.NoGraph {
		return m.generateEager(ctx, prompt, n, observe)
	}
	start := time.Now()
	st, err := m.stepState(ctx)
	if err != nil {
		return nil, tm, err
	}
	defer func() {
		if err != nil { // the device's token and position are not known: start again
			_ = m.step.close()
			m.step = nil
		}
	}()
	ids, err := tensor.FromSlice(ctx, m.dev, prompt, len(prompt))
	if err != nil {
		return nil, tm, err
	}
	logits, err := m.Forward(ids, 0, observe != nil)
	_ = ids.Close()
	if err != nil {
		return nil, tm, err
	}
	id, err := m.pick(ctx, 0, logits, st.ids, observe)
	if err != nil {
		return nil, tm, err
	}
	out := []int32{id}
	tm.PromptTokens, tm.Prefill = len(prompt), time.Since(start)
	if n == 1 {
		return out, tm, nil
	}
	start = time.Now()
	stats := m.dev.Stats()
	// The device's position moves to the prompt's end where the last
	// generation left it: no transfer.
	if err := tensor.Advance(st.pos, len(prompt)-st.at); err != nil {
		return nil, tm, err
	}
	st.at = len(prompt)
	for step := 1; step < n; step++ {
		if st.graph == nil && step == 1 { // eagerly: it compiles what the step needs
			logits, err := m.stepOps(st)
			if err != nil {
				return nil, tm, err
			}
			st.at++
			if observe != nil {
				err = observe(step, logits)
			}
			_ = logits.Close()
			if err != nil {
				return nil, tm, err
			}
			got, err := tensor.ToHost[int32](ctx, st.ids) // the token's one D2H
			if err != nil {
				return nil, tm, err
			}
			id = got[0]
		} else {
			if st.graph == nil {
				t := time.Now()
				if err := m.capture(st); err != nil {
					return nil, tm, err
				}
				tm.Capture = time.Since(t)
			}
			if err := st.graph.Launch(m.dev.DefaultStream()); err != nil {
				return nil, tm, err
			}
			st.at++
			if observe != nil {
				if err := observe(step, st.logits); err != nil {
					return nil, tm, err
				}
			}
			got, err := tensor.ToHost[int32](ctx, st.ids) // the token's one D2H
			if err != nil {
				return nil, tm, err
			}
			id = got[0]
		}
		out = append(out, id)
		tm.DecodeTokens++
	}
	tm.Decode = time.Since(start)
	after := m.dev.Stats()
	tm.DecodeLaunches = after.KernelLaunches - stats.KernelLaunches
	tm.DecodeGraphs = after.GraphLaunches - stats.GraphLaunches
	return out, tm, nil
}

// pick writes the argmax of logits' last row to ids (Int32 [1]) after
// observe (when not nil) saw them, closes logits and returns the id: the
// token's one D2H.
func (m *Model) pick(ctx context.Context, step int, logits, ids *tensor.Tensor, observe func(int, *tensor.Tensor) error) (int32, error) {
	defer logits.Close()
	if observe != nil {
		if err := observe(step, logits); err != nil {
			return 0, err
		}
	}
	rows := logits.Shape()[0]
	last, err := logits.Slice(0, rows-1, rows)
	if err != nil {
		return 0, err
	}
	err = tensor.ArgMaxInto(ids, last, -1)
	_ = last.Close()
	if err != nil {
		return 0, err
	}
	id, err := tensor.ToHost[int32](ctx, ids)
	if err != nil {
		return 0, err
	}
	return id[0], nil
}

// decodeStep is the model's decode step on the device: its token and
// position (Int32 [1] each, read and written by the step), and once
// captured, the step as a graph and the logits each replay writes.
type decodeStep struct {
	ids, pos *tensor.Tensor
	at       int // pos's value
	graph    *gpu.Graph
	logits   *tensor.Tensor
}

// stepState is the model's decode step state, made at the first call.
func (m *Model) stepState(ctx context.Context) (*decodeStep, error) {
	if m.step != nil {
		return m.step, nil
	}
	ids, err := tensor.Zeros(ctx, m.dev, tensor.Int32, 1)
	if err != nil {
		return nil, err
	}
	pos, err := tensor.Zeros(ctx, m.dev, tensor.Int32, 1)
	if err != nil {
		_ = ids.Close()
		return nil, err
	}
	m.step = &decodeStep{ids: ids, pos: pos}
	return m.step, nil
}

// capture records the decode step (stepOps) into st.graph, with the logits
// each replay writes. Nothing runs while it records.
func (m *Model) capture(st *decodeStep) error {
	s := m.dev.DefaultStream()
	if err := s.BeginCapture(); err != nil {
		return fmt.Errorf("gpt2: capturing the decode step: %w", err)
	}
	logits, err := m.stepOps(st)
	g, cerr := s.EndCapture()
	if err = errors.Join(err, cerr); err != nil {
		_ = g.Close()
		if logits != nil { // the ops were recorded; the capture failed
			_ = logits.Close()
		}
		return fmt.Errorf("gpt2: capturing the decode step: %w", err)
	}
	st.graph, st.logits = g, logits
	return nil
}

// stepOps enqueues the decode step's ops on the device: the forward pass of
// the token in st.ids at the position in st.pos, the pick of the next token
// into st.ids and the position's advance. It returns the step's logits
// ([1 vocab]); on an error, none.
func (m *Model) stepOps(st *decodeStep) (*tensor.Tensor, error) {
	logits, err := m.forward(st.ids, position{dev: st.pos}, false)
	if err != nil {
		return nil, err
	}
	if err = tensor.ArgMaxInto(st.ids, logits, -1); err == nil {
		err = tensor.Advance(st.pos, 1)
	}
	if err != nil {
		_ = logits.Close()
		return nil, err
	}
	return logits, nil
}

// close frees the step's graph and tensors.
func (st *decodeStep) close() error {
	if st == nil {
		return nil
	}
	err := st.graph.Close()
	for _, t := range []*tensor.Tensor{st.logits, st.ids, st.pos} {
		if t != nil {
			err = errors.Join(err, t.Close())
		}
	}
	return err
}

// generateEager is Generate with every step launched op by op at host
// positions (NoGraph).
func (m *Model) generateEager(ctx context.Context, prompt []int32, n int, observe func(step int, logits *tensor.Tensor) error) ([]int32, Timing, error) {
	var tm Timing
	start := time.Now()
	ids, err := tensor.FromSlice(ctx, m.dev, prompt, len(prompt))
	if err != nil {
		return nil, tm, err
	}
	var out []int32
	var launches int64 // at the decode's start
	pos := 0
	for step := 0; step < n; step++ {
		T := ids.Len()
		logits, err := m.Forward(ids, pos, observe != nil && step == 0)
		_ = ids.Close()
		if err != nil {
			return nil, tm, err
		}
		pos += T
		if observe != nil {
			if err := observe(step, logits); err != nil {
				_ = logits.Close()
				return nil, tm, err
			}
		}
		last, err := logits.Slice(0, logits.Shape()[0]-1, logits.Shape()[0])
		_ = logits.Close()
		if err != nil {
			return nil, tm, err
		}
		next, err := tensor.ArgMax(last, -1) // Int32 [1], on the device
		_ = last.Close()
		if err != nil {
			return nil, tm, err
		}
		id, err := tensor.ToHost[int32](ctx, next) // the token's one D2H
		if err != nil {
			_ = next.Close()
			return nil, tm, err
		}
		out = append(out, id[0])
		ids = next
		if step == 0 {
			tm.PromptTokens, tm.Prefill = len(prompt), time.Since(start)
			launches = m.dev.Stats().KernelLaunches
			start = time.Now()
		} else {
			tm.DecodeTokens++
		}
	}
	_ = ids.Close()
	tm.Decode = time.Since(start)
	tm.DecodeLaunches = m.dev.Stats().KernelLaunches - launches
	return out, tm, nil
}

func parseIDs(s string) ([]int32, error) {
	var out []int32
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		v, err := strconv.ParseInt(f, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("token id %q: %w", f, err)
		}
		out = append(out, int32(v))
	}
	return out, nil
}
