package gpu

import "sync"

// gate lets calls into one backend object run at the same time, and lets
// Close wait until none is under way before the object is released: the
// backends trust the root to never call an object after its Close (see
// package backend), and a program may race Close against use from another
// goroutine. A call enters (a read lock), checks the closed flags, calls
// the backend and leaves; Close sets its closed flag first and then drains
// the gate (takes the write lock once), so every call that entered before
// has left, and every call that enters after sees the flag.
//
// A call holds the gate only around its own backend calls, never while it
// calls another public method of the same object: sync.RWMutex does not
// allow a reader to enter twice while a writer waits.
type gate struct{ mu sync.RWMutex }

func (g *gate) enter() { g.mu.RLock() }
func (g *gate) leave() { g.mu.RUnlock() }

// drain returns once no call that entered before it is still inside.
func (g *gate) drain() {
	g.mu.Lock()
	g.mu.Unlock() //nolint:staticcheck // an empty critical section: a barrier
}

// closeChild runs release, the backend Close of one of d's objects, unless
// d has closed (its Close released everything the device's objects held).
// Device.Close drains the device's gate after marking it closed, so release
// never runs during or after the backend device's own Close.
func (d *Device) closeChild(release func() error) error {
	d.gate.enter()
	defer d.gate.leave()
	if d.closed.Load() {
		return nil
	}
	return release()
}
