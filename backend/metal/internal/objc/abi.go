package objc

// dispatchArgsAMD64 lays out a message send that takes two MTLSize
// arguments (dispatchThreadgroups:threadsPerThreadgroup:) for
// purego.SyscallN on x86-64 System V: self and _cmd go in rdi and rsi; an
// MTLSize is 24 bytes, more than two eightbytes and not SSE, so it is of
// class MEMORY and passed on the stack, the first one first. The four
// remaining integer registers (rdx, rcx, r8, r9) carry nothing, and
// SyscallN puts its seventh argument and the ones after it on the stack in
// order. The layout is tested against a C function on linux/amd64
// (abi_amd64_test.go).
func dispatchArgsAMD64(self, cmd uintptr, groups, threads Size) [12]uintptr {
	return [12]uintptr{
		self, cmd,
		0, 0, 0, 0, // rdx, rcx, r8, r9: unused
		uintptr(groups.Width), uintptr(groups.Height), uintptr(groups.Depth),
		uintptr(threads.Width), uintptr(threads.Height), uintptr(threads.Depth),
	}
}

// fillArgs lays out fillBuffer:range:value: for purego.SyscallN: the
// NSRange (two NSUIntegers, 16 bytes) is of class INTEGER on x86-64 and a
// composite of at most 16 bytes on arm64, so on both it travels in two
// consecutive integer registers, like two plain arguments; the uint8_t value
// follows, zero extended (Apple's arm64 ABI has the caller extend small
// integers).
func fillArgs(self, cmd, buffer uintptr, location, length uint64, value byte) [6]uintptr {
	return [6]uintptr{self, cmd, buffer, uintptr(location), uintptr(length), uintptr(value)}
}
