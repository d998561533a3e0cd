package backend

import (
	"fmt"
	"sort"
	"sync"
)

var (
	driversMu sync.RWMutex
	drivers   = map[string]Driver{}
)

// Register makes a driver available by its name. It is meant to be called from
// a backend's init function. Like sql.Register it panics if d is nil, its name
// is empty, or a driver of that name is already registered: those are
// programming errors found at start-up, never run-time conditions.
func Register(d Driver) {
	if d == nil {
		panic("backend: Register of a nil driver")
	}
	name := d.Name()
	if name == "" {
		panic("backend: Register of a driver with an empty name")
	}
	driversMu.Lock()
	defer driversMu.Unlock()
	if _, dup := drivers[name]; dup {
		panic(fmt.Sprintf("backend: Register called twice for driver %q", name))
	}
	drivers[name] = d
}

// Drivers returns the registered drivers sorted by name.
func Drivers() []Driver {
	driversMu.RLock()
	defer driversMu.RUnlock()
	out := make([]Driver, 0, len(drivers))
	for _, d := range drivers {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}

// Lookup returns the driver registered under name.
func Lookup(name string) (Driver, bool) {
	driversMu.RLock()
	defer driversMu.RUnlock()
	d, ok := drivers[name]
	return d, ok
}
