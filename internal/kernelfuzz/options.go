package kernelfuzz

// Options selects the constructs a generated program may use. The zero
// value generates straight-line integer code only; Default turns on
// everything the language accepts.
type Options struct {
	Floats      bool // float32 parameters, locals and exact float arithmetic
	Shifts      bool // << and >> with any count (0..40 constants, variable counts)
	DivRem      bool // / and % (by zero and by -1 included)
	Conversions bool // conversions between int32, uint32 and float32
	MathCalls   bool // min, max, kernel.Abs, kernel.Clamp, kernel.Floor, Ceil, Trunc
	Loops       bool // for loops of every form, with break and continue
	Arrays      bool // local fixed-size arrays
	Helpers     bool // helper functions called from kernels and helpers
	EarlyReturn bool // return from inside the kernel's body
	Atomics     bool // AtomicAdd/Min/Max/And/Or/Xor on buffers, results unused
	Shared      bool // a shared array exchanged through barriers in a uniform loop
	MultiKernel bool // more than one kernel per file
	Subgroups   bool // a subgroup reduction and shuffle in the prologue (blocks of a multiple of 32)

	// Constructs that met a translator or driver bug (see Default).

	AbsUint32 bool // kernel.Abs of a uint32 (the identity)
	GroupSize bool // kernel.GroupSizeX() as an operand
	// SignedRemByConstant is x % c for an int32 x and a constant c.
	SignedRemByConstant bool
}

// Default is every construct on.
func Default() Options {
	return Options{Floats: true, Shifts: true, DivRem: true, Conversions: true, MathCalls: true,
		Loops: true, Arrays: true, Helpers: true, EarlyReturn: true, Atomics: true, Shared: true,
		MultiKernel: true, Subgroups: true, AbsUint32: true, GroupSize: true, SignedRemByConstant: true}
}
