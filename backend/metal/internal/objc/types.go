package objc

// ID is an Objective-C object pointer; 0 is nil, to which every message
// does nothing and returns 0.
type ID uintptr

// Sel is a registered selector.
type Sel uintptr

// Size is MTLSize: three NSUIntegers (24 bytes).
type Size struct {
	Width, Height, Depth uint64
}

// NSError is what the backend reads from an NSError (ReadError).
type NSError struct {
	Domain      string
	Code        int64
	Description string // localizedDescription
}
