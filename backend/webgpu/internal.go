//go:build cgo

package webgpu

import (
	"encoding/binary"

	"github.com/anygpu/gpu/errors"
	"github.com/oliverbestmann/webgpu/wgpu"
)

// internalWGSL holds the kernels behind Fill, unaligned Write and Copy:
// WebGPU's own copy and clear commands work on whole 32-bit words only.
// Their parameters (a, b, c, d) sit in the params arena like a launch's.
const internalWGSL = `
struct IP { a: u32, b: u32, c: u32, d: u32 }

// fill_words: words [a, a+b) of the binding = c.
@group(0) @binding(0) var<storage, read_write> fw_dst: array<u32>;
@group(0) @binding(1) var<uniform> fw_p: IP;

@compute @workgroup_size(256)
fn fill_words(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
	let stride = nwg.x * 256u;
	for (var i = gid.x; i < fw_p.b; i += stride) {
		fw_dst[fw_p.a + i] = fw_p.c;
		if (stride > fw_p.b - i) { break; }
	}
}

// patch_word: the bytes of word a selected by mask b = those of c.
@compute @workgroup_size(1)
fn patch_word() {
	let w = fw_p.a;
	fw_dst[w] = (fw_dst[w] & ~fw_p.b) | (fw_p.c & fw_p.b);
}

// copy_vec4: vec4s [a, a+c) of cv_dst = vec4s [b, b+c) of cv_src; each group
// takes chunks of 512 vec4s, two per thread, grid-stride.
@group(0) @binding(0) var<storage, read_write> cv_dst: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> cv_src: array<vec4<u32>>;
@group(0) @binding(2) var<uniform> cv_p: IP;

@compute @workgroup_size(256)
fn copy_vec4(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
		@builtin(local_invocation_index) lid: u32) {
	let n = cv_p.c;
	let chunks = n / 512u + select(0u, 1u, n % 512u != 0u);
	let total = nwg.x * nwg.y;
	for (var c = wg.x + nwg.x * wg.y; c < chunks; c += total) {
		let i0 = c * 512u + lid;
		let i1 = i0 + 256u;
		if (i1 < n) {
			let v0 = cv_src[cv_p.b + i0];
			let v1 = cv_src[cv_p.b + i1];
			cv_dst[cv_p.a + i0] = v0;
			cv_dst[cv_p.a + i1] = v1;
		} else if (i0 < n) {
			cv_dst[cv_p.a + i0] = cv_src[cv_p.b + i0];
		}
		if (total > chunks - c) { break; }
	}
}

// copy_bytes: bytes [a, a+c) of cb_dst = bytes [b, b+c) of cb_src (the two
// may be windows of one buffer; the ranges do not overlap). One thread per
// destination word; the bytes of edge words outside the range are kept.
@group(0) @binding(0) var<storage, read_write> cb_dst: array<u32>;
@group(0) @binding(1) var<storage, read_write> cb_src: array<u32>;
@group(0) @binding(2) var<uniform> cb_p: IP;

fn cb_byte(q: u32) -> u32 {
	return (cb_src[q / 4u] >> ((q % 4u) * 8u)) & 0xffu;
}

@compute @workgroup_size(256)
fn copy_bytes(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
	let a = cb_p.a;
	let end = cb_p.a + cb_p.c;
	let first = a / 4u;
	let last = (end + 3u) / 4u;
	let stride = nwg.x * 256u;
	for (var w = first + gid.x; w < last; w += stride) {
		let p0 = w * 4u;
		var out = 0u;
		if (p0 >= a && p0 + 4u <= end) {
			let q = cb_p.b + (p0 - a);
			if (q % 4u == 0u) {
				out = cb_src[q / 4u];
			} else {
				let s = (q % 4u) * 8u;
				out = (cb_src[q / 4u] >> s) | (cb_src[q / 4u + 1u] << (32u - s));
			}
		} else {
			let old = cb_dst[w];
			for (var i = 0u; i < 4u; i++) {
				let p = p0 + i;
				var byte = (old >> (i * 8u)) & 0xffu;
				if (p >= a && p < end) {
					byte = cb_byte(cb_p.b + (p - a));
				}
				out |= byte << (i * 8u);
			}
		}
		cb_dst[w] = out;
		if (stride > last - w) { break; }
	}
}
`

// internalKernel is a pipeline of internalWGSL and the binding of its
// parameters.
type internalKernel struct {
	kernel
	uniform uint32
}

type internalKernels struct {
	module                           *wgpu.ShaderModule
	fill, patch, copyBytes, copyVec4 internalKernel
}

func (ik *internalKernels) release() {
	ik.fill.release()
	ik.patch.release()
	ik.copyBytes.release()
	ik.copyVec4.release()
	_ = protect("release", func() error { ik.module.Release(); return nil })
}

func (d *device) compileInternal() (*internalKernels, error) {
	const op = "open"
	sm, err := d.createShaderLocked(op, "WGSL", &wgpu.ShaderModuleDescriptor{Label: "anygpu internal", WGSLSource: &wgpu.ShaderSourceWGSL{Code: internalWGSL}})
	if err != nil {
		return nil, err
	}
	ik := &internalKernels{module: sm}
	for _, k := range []struct {
		dst     *internalKernel
		entry   string
		uniform uint32
	}{{&ik.fill, "fill_words", 1}, {&ik.patch, "patch_word", 1}, {&ik.copyBytes, "copy_bytes", 2}, {&ik.copyVec4, "copy_vec4", 2}} {
		k.dst.name, k.dst.uniform = k.entry, k.uniform
		if err := d.pipelineLocked(op, &k.dst.kernel, sm, k.entry); err != nil {
			ik.release()
			return nil, errors.Wrap(err, Name, op)
		}
	}
	return ik, nil
}

// dispatchInternalLocked enqueues k over groups work groups (folded into x
// and y past the dispatch limit) with the given
// storage bindings and parameters.
func (d *device) dispatchInternalLocked(op string, k *internalKernel, entries []wgpu.BindGroupEntry, params [4]uint32, groups uint32) error {
	var block []byte
	for _, p := range params {
		block = binary.LittleEndian.AppendUint32(block, p)
	}
	off := d.paramsLocked(block)
	entries = append(entries, wgpu.BindGroupEntry{Binding: k.uniform, Buffer: d.arena, Offset: off, Size: uint64(len(block))})
	gx := min(max(groups, 1), d.maxDim)
	return d.dispatchLocked(op, errors.Internal, nil, k.pipe, k.layout, entries, gx, (max(groups, 1)+gx-1)/gx, 1)
}

// groupsFor is how many groups of 256 threads cover n items, within the
// dispatch limit (the kernels loop grid-stride over the rest).
func (d *device) groupsFor(n uint64) uint32 {
	return uint32(min((n+255)/256, uint64(d.maxDim)))
}

// window returns the binding window of b that starts at or before byte pos:
// an offset aligned for storage bindings and a size that is a multiple of 4,
// at most the largest binding.
func (d *device) window(b *buffer, pos uint64) (off, size uint64) {
	off = pos / d.storageAlign * d.storageAlign
	return off, min(b.alloc-off, d.maxBinding)
}

// fillWordsLocked sets n bytes at off (multiples of 4) to the repeated v,
// window by window.
func (d *device) fillWordsLocked(op string, b *buffer, off, n uint64, v uint32) error {
	for pos, end := off, off+n; pos < end; {
		ws, wsize := d.window(b, pos)
		we := min(end, ws+wsize)
		count := (we - pos) / 4
		entries := []wgpu.BindGroupEntry{{Binding: 0, Buffer: b.buf, Offset: ws, Size: wsize}}
		if err := d.dispatchInternalLocked(op, &d.internal.fill, entries, [4]uint32{uint32((pos - ws) / 4), uint32(count), v, 0}, d.groupsFor(count)); err != nil {
			return err
		}
		pos = we
	}
	return nil
}

// patchWordLocked replaces the bytes of word w of b that mask selects with
// those of value.
func (d *device) patchWordLocked(op string, b *buffer, w uint64, mask, value uint32) error {
	ws, _ := d.window(b, 4*w)
	entries := []wgpu.BindGroupEntry{{Binding: 0, Buffer: b.buf, Offset: ws, Size: min(b.alloc-ws, d.storageAlign)}}
	return d.dispatchInternalLocked(op, &d.internal.patch, entries, [4]uint32{uint32((4*w - ws) / 4), mask, value, 0}, 1)
}

// copyBytesLocked copies n bytes from sb at sOff to db at dOff with the
// byte-copy kernel, in pieces that fit a storage binding.
func (d *device) copyBytesLocked(op string, db *buffer, dOff uint64, sb *buffer, sOff, n uint64) error {
	chunk := d.maxBinding - 2*d.storageAlign
	for pos := uint64(0); pos < n; pos += chunk {
		l := min(chunk, n-pos)
		s0, d0 := sOff+pos, dOff+pos
		sw := s0 / d.storageAlign * d.storageAlign
		dw := d0 / d.storageAlign * d.storageAlign
		sSize := (s0+l+3)&^3 - sw
		dSize := (d0+l+3)&^3 - dw
		words := (d0-dw+l+3)/4 - (d0-dw)/4
		entries := []wgpu.BindGroupEntry{
			{Binding: 0, Buffer: db.buf, Offset: dw, Size: dSize},
			{Binding: 1, Buffer: sb.buf, Offset: sw, Size: sSize},
		}
		params := [4]uint32{uint32(d0 - dw), uint32(s0 - sw), uint32(l), 0}
		if err := d.dispatchInternalLocked(op, &d.internal.copyBytes, entries, params, d.groupsFor(words)); err != nil {
			return err
		}
	}
	return nil
}

// copyVec4Locked copies n bytes (a multiple of 16) from sb at sOff to db at
// dOff (both multiples of 16) with the vec4 copy kernel, which runs at
// memory speed where the queue's copy command may use a slower copy engine.
func (d *device) copyVec4Locked(op string, db *buffer, dOff uint64, sb *buffer, sOff, n uint64) error {
	chunk := d.maxBinding - d.storageAlign
	for pos := uint64(0); pos < n; pos += chunk {
		l := min(chunk, n-pos)
		s0, d0 := sOff+pos, dOff+pos
		sw := s0 / d.storageAlign * d.storageAlign
		dw := d0 / d.storageAlign * d.storageAlign
		entries := []wgpu.BindGroupEntry{
			{Binding: 0, Buffer: db.buf, Offset: dw, Size: d0 + l - dw},
			{Binding: 1, Buffer: sb.buf, Offset: sw, Size: s0 + l - sw},
		}
		vecs := l / 16
		params := [4]uint32{uint32((d0 - dw) / 16), uint32((s0 - sw) / 16), uint32(vecs), 0}
		groups := uint32(min((vecs+511)/512, maxGridGroups))
		if err := d.dispatchInternalLocked(op, &d.internal.copyVec4, entries, params, groups); err != nil {
			return err
		}
	}
	return nil
}
