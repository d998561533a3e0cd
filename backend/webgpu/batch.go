//go:build cgo

package webgpu

import (
	"bytes"
	"slices"

	"github.com/anygpu/gpu/errors"
	"github.com/oliverbestmann/webgpu/wgpu"
)

// Dispatches (launches and the backend's own kernels) are recorded into one
// command encoder per batch, in one compute pass, rather than one command
// buffer each: a command buffer costs an encoder, a pass, a Finish and, at
// submission, wgpu's per-command-buffer tracking and barriers. Everything
// that can make a dispatch invalid is checked before it is recorded (the
// bind group is created, and validated, on its own; the dispatch size
// against the adapter's limit), so a launch that is invalid still fails
// alone, from Launch. Should the pass or the encoder fail anyway, the
// batch's launches are lost and their streams report the error at their
// next Synchronize. Any other operation closes the shared encoder first
// (its command buffer joins the batch), so work stays in enqueue order.

// bgEntry is a cached bind group: the layout it was made for and its
// entries (the buffers, windows and parameter offset).
type bgEntry struct {
	layout  *wgpu.BindGroupLayout
	entries []wgpu.BindGroupEntry
	bg      *wgpu.BindGroup
}

// bgCacheSize bounds the bind groups kept for reuse.
const bgCacheSize = 64

// bindGroupLocked returns a bind group of layout with entries: a cached one
// when an earlier dispatch used the same (a launch repeated over the same
// buffers with the same scalars needs no new one, nor its validation), else
// a new one, created inside error scopes (a validation error has category
// vcat).
func (d *device) bindGroupLocked(op string, vcat errors.Category, layout *wgpu.BindGroupLayout, entries []wgpu.BindGroupEntry) (*wgpu.BindGroup, error) {
	for i := range d.bgCache {
		c := &d.bgCache[i]
		if c.layout != layout || !slices.Equal(c.entries, entries) {
			continue
		}
		bg := c.bg
		if i > 0 { // keep the most recently used first
			e := *c
			copy(d.bgCache[1:i+1], d.bgCache[:i])
			d.bgCache[0] = e
		}
		return bg, nil
	}
	var bg *wgpu.BindGroup
	err := d.call(op, vcat, func() error {
		var err error
		bg, err = d.dev.TryCreateBindGroup(&wgpu.BindGroupDescriptor{Layout: layout, Entries: entries})
		return err
	})
	if err != nil {
		if bg != nil {
			_ = protect(op, func() error { bg.Release(); return nil })
		}
		return nil, err
	}
	if len(d.bgCache) >= bgCacheSize {
		last := d.bgCache[len(d.bgCache)-1]
		d.bgCache = d.bgCache[:len(d.bgCache)-1]
		d.releaseBindGroupLocked(last.bg)
	}
	d.bgCache = append(d.bgCache, bgEntry{})
	copy(d.bgCache[1:], d.bgCache)
	d.bgCache[0] = bgEntry{layout: layout, entries: entries, bg: bg}
	return bg, nil
}

// releaseBindGroupLocked releases a bind group leaving the cache. The open
// pass may still name it as its current one: wgpu keeps it alive for the
// pass, but it must not be taken as already set.
func (d *device) releaseBindGroupLocked(bg *wgpu.BindGroup) {
	if d.lastBG == bg {
		d.lastBG = nil
	}
	_ = protect("release bind group", func() error { bg.Release(); return nil })
}

// dropBindGroupsLocked releases the cached bind groups for which drop
// reports true (all of them for a nil drop).
func (d *device) dropBindGroupsLocked(drop func(*bgEntry) bool) {
	kept := d.bgCache[:0]
	for _, c := range d.bgCache {
		if drop == nil || drop(&c) {
			d.releaseBindGroupLocked(c.bg)
			continue
		}
		kept = append(kept, c)
	}
	clear(d.bgCache[len(kept):])
	d.bgCache = kept
}

// forgetBufferLocked drops the cached bind groups that hold buf, so that a
// closed buffer's memory is not kept alive by the cache.
func (d *device) forgetBufferLocked(buf *wgpu.Buffer) {
	d.dropBindGroupsLocked(func(c *bgEntry) bool {
		for _, e := range c.entries {
			if e.Buffer == buf {
				return true
			}
		}
		return false
	})
}

// forgetLayoutLocked drops the cached bind groups of a released layout.
func (d *device) forgetLayoutLocked(layout *wgpu.BindGroupLayout) {
	d.dropBindGroupsLocked(func(c *bgEntry) bool { return c.layout == layout })
}

// paramsLocked places a dispatch's parameter block in the arena and returns
// its offset. A block equal to the previous one shares its place (and so,
// with the same buffers, its bind group).
func (d *device) paramsLocked(block []byte) uint64 {
	if d.lastParams >= 0 && bytes.Equal(d.params[d.lastParams:], block) {
		return uint64(d.lastParams)
	}
	return d.allocParamsLocked(block)
}

// dispatchLocked records a dispatch of pipe, with a bind group of layout
// and entries, into the batch's shared compute pass. s is the stream it
// belongs to (nil for the backend's own work).
func (d *device) dispatchLocked(op string, vcat errors.Category, s *stream, pipe *wgpu.ComputePipeline, layout *wgpu.BindGroupLayout, entries []wgpu.BindGroupEntry, x, y, z uint32) error {
	bg, err := d.bindGroupLocked(op, vcat, layout, entries)
	if err != nil {
		return err
	}
	if d.enc == nil {
		var enc *wgpu.CommandEncoder
		err := d.call(op, errors.Execution, func() error {
			var err error
			enc, err = d.dev.TryCreateCommandEncoder(nil)
			return err
		})
		if err != nil {
			return err
		}
		d.enc = enc
	}
	err = protect(op, func() error {
		if d.pass == nil {
			d.pass = d.enc.BeginComputePass(nil)
			d.lastPipe, d.lastBG = nil, nil
		}
		if d.lastPipe != pipe {
			d.pass.SetPipeline(pipe)
			d.lastPipe = pipe
		}
		if d.lastBG != bg {
			d.pass.SetBindGroup(0, bg, nil)
			d.lastBG = bg
		}
		d.pass.DispatchWorkgroups(x, y, z)
		return nil
	})
	if err != nil {
		// The pass is in an unknown state: give up the encoder (and what it
		// holds) rather than submit it.
		d.encStreams = append(d.encStreams, s)
		d.failEncLocked(err)
		return err
	}
	if s != nil && (len(d.encStreams) == 0 || d.encStreams[len(d.encStreams)-1] != s) {
		d.encStreams = append(d.encStreams, s)
	}
	return nil
}

// closeEncLocked ends the shared pass and encoder and adds their command
// buffer to the pending batch. On failure the launches recorded in it are
// lost: their streams get the error, reported at their next Synchronize.
func (d *device) closeEncLocked() error {
	if d.enc == nil {
		return nil
	}
	enc, pass := d.takeEncLocked()
	err := d.call("launch", errors.Execution, func() error {
		defer enc.Release()
		if pass != nil {
			err := pass.TryEnd()
			pass.Release()
			if err != nil {
				return err
			}
		}
		return d.finishLocked(enc)
	})
	d.endEncLocked(err)
	return err
}

// takeEncLocked detaches the shared pass and encoder from the device.
func (d *device) takeEncLocked() (*wgpu.CommandEncoder, *wgpu.ComputePassEncoder) {
	enc, pass := d.enc, d.pass
	d.enc, d.pass, d.lastPipe, d.lastBG = nil, nil, nil, nil
	return enc, pass
}

// finishLocked finishes enc and adds its command buffer to the pending
// batch.
func (d *device) finishLocked(enc *wgpu.CommandEncoder) error {
	cb, err := enc.TryFinish(nil)
	if err != nil {
		return err
	}
	d.cmds = append(d.cmds, cb)
	return nil
}

// failEncLocked drops the shared encoder after a failure in it.
func (d *device) failEncLocked(err error) {
	enc, pass := d.takeEncLocked()
	_ = protect("launch", func() error {
		if pass != nil {
			pass.Release()
		}
		if enc != nil {
			enc.Release()
		}
		return nil
	})
	d.endEncLocked(err)
}

// endEncLocked forgets the streams whose work the shared encoder held,
// first handing them err, the encoder's failure, if there is one.
func (d *device) endEncLocked(err error) {
	if err != nil {
		if e, ok := err.(*errors.Error); ok && e.Category == errors.Execution {
			c := *e
			c.Msg = "launches lost: " + e.Msg
			err = &c
		}
		for _, s := range d.encStreams {
			if s != nil && s.err == nil {
				s.err = err
			}
		}
	}
	clear(d.encStreams)
	d.encStreams = d.encStreams[:0]
}
