//go:build cgo

package webgpu

import (
	"container/list"
	"encoding/binary"
	"slices"
	"unsafe"

	"github.com/anygpu/gpu/errors"
	"github.com/oliverbestmann/webgpu/wgpu"
)

// Dispatches (launches and the backend's own kernels) are recorded into one
// command encoder per batch, in one compute pass, rather than one command
// buffer each: a command buffer costs an encoder, a pass, a Finish and, at
// submission, wgpu's per-command-buffer tracking and barriers. Everything
// that can make a dispatch invalid is checked before it is recorded: the
// dispatch size against the adapter's limit; the bind group, created on its
// own; and, for each new combination of kernel and buffers, the dispatch
// itself, recorded into a throwaway encoder that is never submitted (wgpu
// reports what is wrong in a dispatch, such as one buffer bound both
// read-only and read-write, only when its pass ends, and an error there
// poisons the whole encoder). So a launch that is invalid fails alone, from
// Launch, before it joins the batch. Should the shared pass or encoder fail
// anyway, its dispatches are recorded again into a new one, each first
// validated alone: only those that fail alone are lost, and their streams
// report the error at their next Synchronize. Until the shared encoder is
// finished, the bind groups its dispatches use stay alive (evicted ones are
// released after it), and closing a buffer or a module finishes it first.
// Any other operation closes the shared encoder first (its command buffer
// joins the batch), so work stays in enqueue order.

// recorded is a dispatch recorded into the shared pass, kept until the
// pass's command buffer is finished.
type recorded struct {
	s       *stream // the stream it belongs to; nil for the backend's own work
	op      string
	vcat    errors.Category // the category of a validation error
	pipe    *wgpu.ComputePipeline
	bg      *wgpu.BindGroup
	x, y, z uint32
}

// bgEntry is a cached bind group: the layout it was made for and its
// entries (the buffers, windows and parameter offset), under its key
// (bindKey).
type bgEntry struct {
	key     string
	layout  *wgpu.BindGroupLayout
	entries []wgpu.BindGroupEntry
	bg      *wgpu.BindGroup
}

// bgCacheSize bounds the bind groups kept for reuse. A decode step of a
// language model is a few hundred launches over buffers that the memory
// pool hands out again in the next step, with parameter blocks that the
// arena keeps in place (paramsLocked): a cache that holds a whole step
// serves every launch of the next from it, where a new bind group costs
// its creation, its validation and, for each new combination of buffers, a
// dispatch into a throwaway encoder.
const bgCacheSize = 4096

// bindCache is the device's cache of bind groups, by key, least recently
// used evicted first, and the combinations of layout and buffers whose
// dispatch was validated (validateDispatchLocked).
type bindCache struct {
	byKey map[string]*list.Element // of *bgEntry
	lru   list.List                // most recently used at the front
	// validated holds the keys (validationKey) of the combinations
	// validated, with the entries first seen with each.
	validated map[string]bgEntry
	scratch   []byte
}

// bindKey appends to buf the key of a bind group of layout with entries:
// the layout and, per entry, its binding, buffer, offset and size.
func bindKey(buf []byte, layout *wgpu.BindGroupLayout, entries []wgpu.BindGroupEntry) []byte {
	buf = binary.LittleEndian.AppendUint64(buf, uint64(uintptr(unsafe.Pointer(layout))))
	for _, e := range entries {
		buf = binary.LittleEndian.AppendUint32(buf, e.Binding)
		buf = binary.LittleEndian.AppendUint64(buf, uint64(uintptr(unsafe.Pointer(e.Buffer))))
		buf = binary.LittleEndian.AppendUint64(buf, e.Offset)
		buf = binary.LittleEndian.AppendUint64(buf, e.Size)
	}
	return buf
}

// validationKey appends to buf what a dispatch's validation depends on once
// its bind group has been created: the pipeline, the layout and, per entry,
// its binding, its size (checked against what the shader declares) and which
// earlier entry binds the same buffer (a buffer bound twice may conflict),
// but not the buffers themselves nor their offsets. A model's decode step
// binds new views and temporaries at every token: keyed by buffers, each of
// its launches was dispatched into a throwaway encoder again (on an H200,
// half of GPT-2's decode time on WebGPU).
func validationKey(buf []byte, pipe *wgpu.ComputePipeline, layout *wgpu.BindGroupLayout, entries []wgpu.BindGroupEntry) []byte {
	buf = binary.LittleEndian.AppendUint64(buf, uint64(uintptr(unsafe.Pointer(pipe))))
	buf = binary.LittleEndian.AppendUint64(buf, uint64(uintptr(unsafe.Pointer(layout))))
	for i, e := range entries {
		alias := uint32(i)
		for j := range i {
			if entries[j].Buffer == e.Buffer {
				alias = uint32(j)
				break
			}
		}
		buf = binary.LittleEndian.AppendUint32(buf, e.Binding)
		buf = binary.LittleEndian.AppendUint32(buf, alias)
		buf = binary.LittleEndian.AppendUint64(buf, e.Size)
	}
	return buf
}

// bindGroupLocked returns a bind group of layout with entries for pipe: a
// cached one when an earlier dispatch used the same (a launch repeated over
// the same buffers with the same scalars needs no new one, nor its
// validation), else a new one, created inside error scopes (a validation
// error has category vcat), and, unless the same buffers were bound for
// pipe's layout before in the same pattern and sizes (validationKey), checked
// in a dispatch of its own (validateDispatchLocked).
func (d *device) bindGroupLocked(op string, vcat errors.Category, pipe *wgpu.ComputePipeline, layout *wgpu.BindGroupLayout, entries []wgpu.BindGroupEntry) (*wgpu.BindGroup, error) {
	c := &d.bgs
	if c.byKey == nil {
		c.byKey = map[string]*list.Element{}
		c.validated = map[string]bgEntry{}
	}
	c.scratch = bindKey(c.scratch[:0], layout, entries)
	if el, ok := c.byKey[string(c.scratch)]; ok {
		c.lru.MoveToFront(el)
		return el.Value.(*bgEntry).bg, nil
	}
	key := string(c.scratch)
	var bg *wgpu.BindGroup
	err := d.call(op, vcat, func() error {
		var err error
		bg, err = d.dev.TryCreateBindGroup(&wgpu.BindGroupDescriptor{Layout: layout, Entries: entries})
		return err
	})
	c.scratch = validationKey(c.scratch[:0], pipe, layout, entries)
	vkey := string(c.scratch)
	_, validated := c.validated[vkey]
	if err == nil && !validated {
		err = d.validateDispatchLocked(op, vcat, pipe, bg)
	}
	if err != nil {
		if bg != nil {
			_ = protect(op, func() error { bg.Release(); return nil })
		}
		return nil, err
	}
	if !validated {
		if len(c.validated) >= bgCacheSize {
			clear(c.validated)
		}
		c.validated[vkey] = bgEntry{key: vkey, layout: layout, entries: entries}
	}
	if c.lru.Len() >= bgCacheSize {
		last := c.lru.Remove(c.lru.Back()).(*bgEntry)
		delete(c.byKey, last.key)
		d.releaseBindGroupLocked(last.bg)
	}
	c.byKey[key] = c.lru.PushFront(&bgEntry{key: key, layout: layout, entries: entries, bg: bg})
	return bg, nil
}

// validateDispatchLocked records a dispatch of pipe with bg into an encoder
// of its own, which is never submitted, and returns what wgpu's validation
// finds wrong with it (category vcat).
func (d *device) validateDispatchLocked(op string, vcat errors.Category, pipe *wgpu.ComputePipeline, bg *wgpu.BindGroup) error {
	return d.call(op, vcat, func() error {
		enc, err := d.dev.TryCreateCommandEncoder(nil)
		if err != nil {
			return err
		}
		defer enc.Release()
		pass := enc.BeginComputePass(nil)
		pass.SetPipeline(pipe)
		pass.SetBindGroup(0, bg, nil)
		pass.DispatchWorkgroups(1, 1, 1)
		err = pass.TryEnd()
		pass.Release()
		if err != nil {
			return err
		}
		cb, err := enc.TryFinish(nil)
		if err != nil {
			return err
		}
		cb.Release()
		return nil
	})
}

// releaseBindGroupLocked releases a bind group leaving the cache. While the
// shared encoder is open its dispatches may use it, and may have to be
// recorded again: it is released once the encoder is finished.
func (d *device) releaseBindGroupLocked(bg *wgpu.BindGroup) {
	if d.lastBG == bg {
		d.lastBG = nil
	}
	if d.enc != nil {
		d.encHeld = append(d.encHeld, bg)
		return
	}
	_ = protect("release bind group", func() error { bg.Release(); return nil })
}

// releaseHeldLocked releases the bind groups that left the cache while the
// shared encoder was open.
func (d *device) releaseHeldLocked() {
	for _, bg := range d.encHeld {
		_ = protect("release bind group", func() error { bg.Release(); return nil })
	}
	clear(d.encHeld)
	d.encHeld = d.encHeld[:0]
}

// dropBindGroupsLocked releases the cached bind groups, and forgets the
// validated combinations, for which drop reports true (all of them for a
// nil drop).
func (d *device) dropBindGroupsLocked(drop func(*bgEntry) bool) {
	c := &d.bgs
	for el := c.lru.Front(); el != nil; {
		next := el.Next()
		if e := el.Value.(*bgEntry); drop == nil || drop(e) {
			c.lru.Remove(el)
			delete(c.byKey, e.key)
			d.releaseBindGroupLocked(e.bg)
		}
		el = next
	}
	for k, e := range c.validated {
		if drop == nil || drop(&e) {
			delete(c.validated, k)
		}
	}
}

// cachedBindGroupsLocked calls f with each cached bind group, most recently
// used first.
func (d *device) cachedBindGroupsLocked(f func(*bgEntry)) {
	for el := d.bgs.lru.Front(); el != nil; el = el.Next() {
		f(el.Value.(*bgEntry))
	}
}

// forgetBufferLocked drops the cached bind groups that hold buf, so that a
// closed buffer's memory is not kept alive by the cache (and a buffer made
// later at its address is validated anew).
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

// dispatchLocked records a dispatch of pipe, with a bind group of layout
// and entries, into the batch's shared compute pass. s is the stream it
// belongs to (nil for the backend's own work).
func (d *device) dispatchLocked(op string, vcat errors.Category, s *stream, pipe *wgpu.ComputePipeline, layout *wgpu.BindGroupLayout, entries []wgpu.BindGroupEntry, x, y, z uint32) error {
	bg, err := d.bindGroupLocked(op, vcat, pipe, layout, entries)
	if err != nil {
		return err
	}
	r := recorded{s: s, op: op, vcat: vcat, pipe: pipe, bg: bg, x: x, y: y, z: z}
	if err := d.recordLocked(r); err != nil {
		// The pass is in an unknown state: record the other dispatches
		// again, in a new one.
		ops := slices.Clone(d.encOps)
		d.dropEncLocked()
		d.salvageLocked(ops)
		return err
	}
	return nil
}

// recordLocked records r into the shared pass, opening the shared encoder
// and pass when there is none. On failure the pass is in an unknown state.
func (d *device) recordLocked(r recorded) error {
	if d.enc == nil {
		var enc *wgpu.CommandEncoder
		err := d.call(r.op, errors.Execution, func() error {
			var err error
			enc, err = d.dev.TryCreateCommandEncoder(nil)
			return err
		})
		if err != nil {
			return err
		}
		d.enc = enc
	}
	err := protect(r.op, func() error {
		if d.pass == nil {
			d.pass = d.enc.BeginComputePass(nil)
			d.lastPipe, d.lastBG = nil, nil
		}
		if d.lastPipe != r.pipe {
			d.pass.SetPipeline(r.pipe)
			d.lastPipe = r.pipe
		}
		if d.lastBG != r.bg {
			d.pass.SetBindGroup(0, r.bg, nil)
			d.lastBG = r.bg
		}
		d.pass.DispatchWorkgroups(r.x, r.y, r.z)
		return nil
	})
	if err != nil {
		return err
	}
	d.encOps = append(d.encOps, r)
	return nil
}

// closeEncLocked ends the shared pass and encoder and adds their command
// buffer to the pending batch. Should that fail, the dispatches are
// recorded again into a new encoder, each validated alone: those that fail
// alone are lost (their streams get the error, reported at their next
// Synchronize), the others go on; only if the new encoder fails too are
// its dispatches lost.
func (d *device) closeEncLocked() error {
	if d.enc == nil {
		return nil
	}
	err := d.finishEncLocked()
	if err != nil {
		ops := slices.Clone(d.encOps)
		d.dropEncLocked()
		d.salvageLocked(ops)
		if d.enc != nil {
			if err = d.finishEncLocked(); err != nil {
				d.loseLocked(d.encOps, err)
				d.dropEncLocked()
			}
		} else {
			err = nil
		}
	}
	d.releaseHeldLocked()
	return err
}

// finishEncLocked ends the shared pass, finishes the shared encoder and adds
// its command buffer to the pending batch; on failure the encoder is
// released but its dispatches stay listed (encOps).
func (d *device) finishEncLocked() error {
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
	if err == nil {
		clear(d.encOps)
		d.encOps = d.encOps[:0]
	}
	return err
}

// salvageLocked records ops again, each validated alone first: one that
// fails alone is lost (loseLocked); should recording fail, the dispatches
// in the new encoder are lost with it.
func (d *device) salvageLocked(ops []recorded) {
	for _, r := range ops {
		if err := d.validateDispatchLocked(r.op, r.vcat, r.pipe, r.bg); err != nil {
			d.loseLocked([]recorded{r}, err)
			continue
		}
		if err := d.recordLocked(r); err != nil {
			d.loseLocked(append(d.encOps, r), err)
			d.dropEncLocked()
		}
	}
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

// dropEncLocked releases the shared encoder and pass, if any, and forgets
// their dispatches.
func (d *device) dropEncLocked() {
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
	clear(d.encOps)
	d.encOps = d.encOps[:0]
}

// failEncLocked drops the shared encoder, losing its dispatches with err.
func (d *device) failEncLocked(err error) {
	d.loseLocked(d.encOps, err)
	d.dropEncLocked()
	d.releaseHeldLocked()
}

// loseLocked hands err, the failure that lost ops, to their streams, to be
// reported at their next Synchronize; the loss of the backend's own work
// goes to the device's asynchronous errors.
func (d *device) loseLocked(ops []recorded, err error) {
	if e, ok := err.(*errors.Error); ok && e.Category == errors.Execution {
		c := *e
		c.Msg = "launches lost: " + e.Msg
		err = &c
	}
	for _, r := range ops {
		switch {
		case r.s == nil:
			d.errMu.Lock()
			d.uncapErrs = append(d.uncapErrs, err)
			d.errMu.Unlock()
		case r.s.err == nil:
			r.s.err = err
		}
	}
}
