//go:build cgo

package webgpu

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
	"github.com/oliverbestmann/webgpu/wgpu"
)

// WGSL sized by the launch: a source that declares
//
//	const anygpu_block_x: u32 = 64u;
//	const anygpu_block_y: u32 = 1u;
//	const anygpu_block_z: u32 = 1u;
//
// and gives entry points @workgroup_size(anygpu_block_x, anygpu_block_y,
// anygpu_block_z) (as the kernel language's WGSL does) is compiled as it is
// for launches with the declared block, and again with the three values
// rewritten for each other block a launch names: one shader module per
// block, one pipeline per (kernel, block), the least recently used dropped
// beyond maxBlockVariants blocks per module.

// maxBlockVariants bounds the blocks other than the declared one a module
// keeps compiled.
const maxBlockVariants = 8

var (
	// blockConstRE matches one of the three block constants.
	blockConstRE = regexp.MustCompile(`const\s+anygpu_block_([xyz])\s*(?::\s*u32\s*)?=\s*([0-9]+)u?\s*;`)
	// blockSizeRE matches a @workgroup_size of the block constants.
	blockSizeRE = regexp.MustCompile(`@workgroup_size\s*\(\s*anygpu_block_x\s*,\s*anygpu_block_y\s*,\s*anygpu_block_z\s*,?\s*\)`)
)

// blockVariants is a module's compilations per launch block.
type blockVariants struct {
	src     string          // the WGSL as given
	block   backend.Dim3    // the block it declares
	entries map[string]bool // the entry points sized by the constants
	byBlock map[backend.Dim3]*blockVariant
	clock   uint64 // uses so far, for LRU
}

// blockVariant is the shader module of one block and its kernels'
// pipelines.
type blockVariant struct {
	shader *wgpu.ShaderModule
	pipes  map[string]*blockPipe
	used   uint64
}

type blockPipe struct {
	pipe   *wgpu.ComputePipeline
	layout *wgpu.BindGroupLayout
}

// newBlockVariants returns the variants of a WGSL source that declares the
// three block constants once each, nil for any other.
func newBlockVariants(src string) *blockVariants {
	code := wgslCommentRE.ReplaceAllString(src, " ")
	found := map[string]int{}
	for _, m := range blockConstRE.FindAllStringSubmatch(code, -1) {
		v, err := strconv.Atoi(m[2])
		if _, dup := found[m[1]]; dup || err != nil || v < 1 {
			return nil
		}
		found[m[1]] = v
	}
	if len(found) != 3 {
		return nil
	}
	b := &blockVariants{
		src: src, block: backend.Dim3{X: found["x"], Y: found["y"], Z: found["z"]},
		entries: map[string]bool{}, byBlock: map[backend.Dim3]*blockVariant{},
	}
	for _, m := range wgslEntryRE.FindAllStringSubmatch(code, -1) {
		if blockSizeRE.MatchString(m[1]) {
			b.entries[m[2]] = true
		}
	}
	return b
}

// rewrite is the source with the block constants set to block.
func (b *blockVariants) rewrite(block backend.Dim3) string {
	return blockConstRE.ReplaceAllStringFunc(b.src, func(c string) string {
		axis := blockConstRE.FindStringSubmatch(c)[1]
		v := map[string]int{"x": block.X, "y": block.Y, "z": block.Z}[axis]
		return fmt.Sprintf("const anygpu_block_%s: u32 = %du;", axis, v)
	})
}

// pipelineLocked returns k's pipeline and layout for block, compiling the
// module for that block first if need be. A block the device cannot take is
// InvalidArgument.
func (b *blockVariants) pipelineLocked(op string, k *kernel, block backend.Dim3) (*wgpu.ComputePipeline, *wgpu.BindGroupLayout, error) {
	d := k.m.d
	b.clock++
	v := b.byBlock[block]
	if v == nil {
		b.evictLocked(d)
		sm, err := d.createShaderLocked(op, "WGSL", &wgpu.ShaderModuleDescriptor{
			Label: fmt.Sprintf("%s@%dx%dx%d", k.m.name, block.X, block.Y, block.Z), WGSLSource: &wgpu.ShaderSourceWGSL{Code: b.rewrite(block)},
		})
		if err != nil {
			return nil, nil, blockError(err, block)
		}
		v = &blockVariant{shader: sm, pipes: map[string]*blockPipe{}}
		b.byBlock[block] = v
	}
	v.used = b.clock
	if p := v.pipes[k.name]; p != nil {
		return p.pipe, p.layout, nil
	}
	var p blockPipe
	err := d.call(op, errors.Compilation, func() error {
		var err error
		p.pipe, err = d.dev.TryCreateComputePipeline(&wgpu.ComputePipelineDescriptor{
			Label:   fmt.Sprintf("%s@%dx%dx%d", k.name, block.X, block.Y, block.Z),
			Compute: wgpu.ProgrammableStageDescriptor{Module: v.shader, EntryPoint: k.name},
		})
		if err != nil {
			return err
		}
		p.layout = p.pipe.GetBindGroupLayout(0)
		return nil
	})
	if err != nil {
		p.release()
		return nil, nil, blockError(err, block)
	}
	v.pipes[k.name] = &p
	return p.pipe, p.layout, nil
}

// blockError makes a failure to compile for a block the launch's error.
func blockError(err error, block backend.Dim3) error {
	if e, ok := err.(*errors.Error); ok && e.Category == errors.Compilation {
		e.Category = errors.InvalidArgument
		e.Msg = fmt.Sprintf("block %v: %s", block, strings.TrimPrefix(e.Msg, "validation error: "))
		e.Hint = "launch with a block the device takes (DeviceInfo's MaxBlock and work-group memory)"
	}
	return err
}

// evictLocked makes room for one more block: beyond maxBlockVariants, the
// least recently used is released, after the shared pass (whose dispatches
// may be recorded again) is closed.
func (b *blockVariants) evictLocked(d *device) {
	if len(b.byBlock) < maxBlockVariants {
		return
	}
	var oldest backend.Dim3
	var v *blockVariant
	for blk, c := range b.byBlock {
		if v == nil || c.used < v.used {
			oldest, v = blk, c
		}
	}
	_ = d.closeEncLocked()
	v.releaseLocked(d)
	delete(b.byBlock, oldest)
}

// releaseLocked releases every variant (the shared pass is closed by the
// caller).
func (b *blockVariants) releaseLocked(d *device) {
	for blk, v := range b.byBlock {
		v.releaseLocked(d)
		delete(b.byBlock, blk)
	}
}

func (v *blockVariant) releaseLocked(d *device) {
	for _, p := range v.pipes {
		d.forgetLayoutLocked(p.layout)
		p.release()
	}
	_ = protect("release shader", func() error { v.shader.Release(); return nil })
}

func (p *blockPipe) release() {
	_ = protect("release pipeline", func() error {
		if p.layout != nil {
			p.layout.Release()
		}
		if p.pipe != nil {
			p.pipe.Release()
		}
		return nil
	})
}
