//go:build cgo

package webgpu

// SetForceHostTiming makes devices opened from now on time events on the
// host clock (as without timestamp queries); the returned func restores the
// setting.
func SetForceHostTiming(on bool) func() {
	old := forceHostTiming
	forceHostTiming = on
	return func() { forceHostTiming = old }
}
