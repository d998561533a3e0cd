// Package objc is the Metal backend's binding to the Objective-C runtime,
// Foundation, Metal.framework and IOKit, reached without cgo: the libraries
// are opened through internal/dl on first use (never from init), and every
// message with integer and pointer arguments is one purego.SyscallN on
// objc_msgSend.
//
// Why not purego's objc package: its init function opens libobjc and
// panics when that fails, at the start of every program that links the
// backend (a backend's init may only register its driver), and its Send
// goes through reflection (objc.Send[T] even registers a new function on
// every call), which the per-launch path cannot afford. The few messages
// that need the C ABI's float and struct rules (a double return, an MTLSize
// return, two MTLSize arguments, an NSRange argument) have their own
// functions here: SendF64, SendSize, DispatchThreadgroups and FillBuffer.
//
// The runtime code is built for darwin only; the types and the argument
// layouts (abi.go) build everywhere, so their tests run on Linux.
package objc
