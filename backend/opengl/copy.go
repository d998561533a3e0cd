//go:build linux

package opengl

import (
	"encoding/binary"
	"strings"

	"github.com/anygpu/gpu/backend/opengl/internal/gl"
)

// Copies within the device. glCopyBufferSubData may run on a copy engine
// (NVIDIA's moves a few percent of the memory bandwidth a kernel does), so a
// hardware device copies the 16-byte-aligned bulk of a range with a compute
// shader that moves one uvec4 per invocation, grid-stride; unaligned ranges,
// the tail and software renderers (EnvCopy) use glCopyBufferSubData.
const (
	// copyGroup is the copy shader's work-group size.
	copyGroup = 256
	// copyMaxPiece bounds one dispatch's range (and so its uint indices).
	copyMaxPiece = 1 << 30
)

// copyShaderBody is the copy shader after its #version line: src and dst are
// bound as ranges at bindings 0 and 1, the count of uvec4s in a uniform
// block at binding 2.
const copyShaderBody = `layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer Src { uvec4 src[]; };
layout(std430, binding = 1) writeonly buffer Dst { uvec4 dst[]; };
layout(std140, binding = 2) uniform Params { uint n; };
void main() {
	uint stride = gl_NumWorkGroups.x * 256u;
	for (uint i = gl_GlobalInvocationID.x; i < n; i += stride) {
		dst[i] = src[i];
	}
}
`

// shaderCopyWanted reads EnvCopy's value for a device.
func shaderCopyWanted(v string, software bool) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "shader":
		return true
	case "driver":
		return false
	}
	return !software
}

// copyProgram returns the copy shader's program, building it on first use;
// 0 when the driver does not build it (the copies then use
// glCopyBufferSubData).
func (t *thread) copyProgram() uint32 {
	if t.copyProg != 0 || t.copyFailed {
		return t.copyProg
	}
	f := t.gl
	head := "#version 430\n"
	if f.ES {
		head = esVersion + "\nprecision highp float;\nprecision highp int;\n"
	}
	sh := f.CreateShader(gl.ComputeShader)
	f.ShaderSource(sh, head+copyShaderBody)
	f.CompileShader(sh)
	if f.GetShader(sh, gl.CompileStatus) == 0 {
		f.DeleteShader(sh)
		t.copyFailed = true
		_ = t.check("build copy shader")
		return 0
	}
	p := f.CreateProgram()
	f.AttachShader(p, sh)
	f.LinkProgram(p)
	f.DetachShader(p, sh)
	f.DeleteShader(sh)
	if f.GetProgram(p, gl.LinkStatus) == 0 {
		f.DeleteProgram(p)
		t.copyFailed = true
		_ = t.check("build copy shader")
		return 0
	}
	t.copyProg = p
	return p
}

// copyBuffers copies n bytes from buffer src at srcOff to dst at dstOff:
// the 16-byte-aligned bulk with the copy shader where shader is set and the
// offsets allow, the rest (or all) with glCopyBufferSubData.
func (t *thread) copyBuffers(op string, dst uint32, dstOff int64, src uint32, srcOff, n int64, shader bool) error {
	f := t.gl
	lim := t.dev.lim
	align := max(16, lim.ssboAlign)
	bulk := n &^ 15
	if !shader || srcOff%align != 0 || dstOff%align != 0 || bulk < align || lim.ssboAlign&(lim.ssboAlign-1) != 0 {
		bulk = 0
	}
	piece := min(lim.maxBlock, copyMaxPiece)
	piece -= piece % align
	var p uint32
	if bulk > 0 && piece > 0 {
		p = t.copyProgram()
	}
	if p == 0 {
		bulk = 0
	}
	if bulk > 0 {
		if t.program != p {
			f.UseProgram(p)
			t.program = p
		}
		t.ssbo[0], t.ssbo[1] = 0, 0 // bound as ranges: a launch binds its buffers again
		var params [16]byte
		for done := int64(0); done < bulk; done += piece {
			m := min(piece, bulk-done)
			f.BindBufferRange(gl.ShaderStorageBuffer, 0, src, srcOff+done, m)
			f.BindBufferRange(gl.ShaderStorageBuffer, 1, dst, dstOff+done, m)
			count := m / 16
			binary.LittleEndian.PutUint32(params[:], uint32(count))
			t.uniforms(2, params[:])
			groups := min((count+copyGroup-1)/copyGroup, int64(lim.groupCount.X), 65535)
			f.DispatchCompute(uint32(groups), 1, 1)
		}
		f.MemoryBarrier(gl.ShaderStorageBarrier | gl.BufferUpdateBarrier)
	}
	if rest := n - bulk; rest > 0 {
		f.BindBuffer(gl.CopyReadBuffer, src)
		f.BindBuffer(gl.CopyWriteBuffer, dst)
		f.CopyBufferSubData(gl.CopyReadBuffer, gl.CopyWriteBuffer, srcOff+bulk, dstOff+bulk, rest)
	}
	t.dirty = true
	return t.check(op)
}
