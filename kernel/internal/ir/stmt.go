package ir

// Stmt is a statement.
type Stmt interface{ StmtPos() Pos }

// Decl declares a Local. Init is nil for the zero value (arrays are zeroed
// too).
type Decl struct {
	Var  *Var
	Init Expr
	Pos  Pos
}

// Assign stores Value in Place: a Ref to a scalar or Vec local, an Index
// (of a buffer, an array or a shared array), or a Lane of a Vec local.
type Assign struct {
	Place Expr
	Value Expr
	Pos   Pos
}

// ExprStmt evaluates X for its effects (a Call or an Atomic).
type ExprStmt struct {
	X   Expr
	Pos Pos
}

// If is if Cond { Then } else { Else }. Else is empty when absent; an else-if
// is an Else holding one If.
type If struct {
	Cond       Expr
	Then, Else []Stmt
	Pos        Pos
}

// For is a loop: Init; for Cond { Body; Post }. Init and Post are nil or
// one statement each (Init a Decl or Assign, Post an Assign); Cond is nil
// for a loop without a condition. Continue runs Post.
type For struct {
	Init Stmt
	Cond Expr
	Post Stmt
	Body []Stmt
	Pos  Pos
	// Trips is the number of iterations when the optimizer proved it
	// constant but left the loop rolled (too large to unroll), else 0: a
	// hint an emitter may pass on (CUDA's #pragma unroll).
	Trips int
}

// Break leaves the innermost For.
type Break struct{ Pos Pos }

// Continue goes on with the next iteration of the innermost For.
type Continue struct{ Pos Pos }

// Return leaves the function; Value is nil in a kernel (an early return ends
// the thread) and the result in a helper.
type Return struct {
	Value Expr
	Pos   Pos
}

// Barrier is kernel.Barrier(): a work-group execution and memory barrier
// (shared arrays and buffers). It is reached by every thread of a group or
// by none: the front end checks that every If and For around it has a
// uniform condition.
type Barrier struct{ Pos Pos }

// Store4 is kernel.Store4(Buf, Index, Value): a 4-wide store of a Vec into a
// buffer at Index (in Vec units).
type Store4 struct {
	Buf   *Ref
	Index Expr
	Value Expr
	Pos   Pos
}

// Precision is how a MatMulAdd rounds its operands (and, for an MMA or a
// PackHalves built-in, which 16-bit format its words hold).
type Precision uint8

// The precisions (kernel.PrecisionFloat32, ...).
const (
	PrecisionFloat32  Precision = iota // float32 operands, products and sums (no TF32)
	PrecisionBFloat16                  // operands rounded to bfloat16 (nearest even); exact products; float32 sums
	PrecisionFloat16                   // operands rounded to float16 (nearest even); exact products; float32 sums
)

// MatMulAdd is kernel.MatMulAdd: the group computes C += A·B on shared
// arrays of F32 (one-dimensional), C M×N with row stride LDC, A M×K with
// stride LDA, B K×N with stride LDB, or N×K (Bᵀ) when TransposeB. M, N and K
// are positive multiples of 16; the strides are at least the rows' lengths
// (the front end resolved the defaults) and the arrays long enough; C is
// neither A nor B. Like a Barrier it is reached by every thread of a group
// or by none, and it orders memory as a Barrier before and after it (the
// front end sets Func.Barriers for it): on return C is the result in every
// thread. The order of the float32 sums is the emitter's.
//
// With From set it is kernel.MatMulAddFrom: A and B are buffers of F32
// (parameters), read from element From.AOff and From.BOff with the row
// strides From.LDA and From.LDB (U32 expressions, the same in every thread
// of the group, as the front end checks), and LDA and LDB are 0. C stays a
// shared array. A part of A or B outside its buffer is the kernel's error.
type MatMulAdd struct {
	C, A, B       *Ref
	M, N, K       int
	LDA, LDB, LDC int
	TransposeB    bool
	Precision     Precision
	From          *MatMulFrom
	Pos           Pos
}

// MatMulFrom is where a MatMulAdd from buffers reads A and B: the element
// offsets of A[0][0] and B[0][0] (Bᵀ's when TransposeB) in their buffers
// and the buffers' row strides, all U32 and uniform over the group.
type MatMulFrom struct {
	AOff, LDA, BOff, LDB Expr
}

// Exprs returns f's expressions in the order AOff, LDA, BOff, LDB.
func (f *MatMulFrom) Exprs() []Expr { return []Expr{f.AOff, f.LDA, f.BOff, f.LDB} }

// MMA is kernel.MMA: a matrix unit (32 consecutive threads of the group by
// ThreadIndex) computes C += A·B on a 16×16 A, a 16×8 B and a 16×8 C whose
// fragments its threads hold in local arrays, laid out as PTX's
// mma.m16n8k16 (package kernel's doc of MMA): C is a [4]F32 place, A a
// [4]U32 and B a [2]U32, each a Ref to a local array of that type or an
// Index (of Indexes) of a local array of such arrays whose indices have no
// effects (no Call, no Atomic). Each U32 holds two 16-bit values of
// Precision (PrecisionBFloat16 or PrecisionFloat16), the lower index in the
// low half. Like a Barrier it is reached by every thread of a group or by
// none (the front end checks it and sets Func.Barriers), only in kernels
// whose MaxThreads is a positive multiple of 32. CUDA emits it as mma.sync
// (warp-synchronous, no barrier); every other dialect gets opt.Portable's
// rewrite into a shared scratch array, stores and Barriers.
type MMA struct {
	C, A, B   Expr
	Precision Precision
	Pos       Pos
}

// LoadMatrices is kernel.LoadMatrices4 (N 4) or LoadMatrices2 (N 2): a
// matrix unit loads N 8×8 matrices of 16-bit values from the shared U32
// array Src into the [N]U32 fragment place Frag (a Ref or an Index of
// Indexes of a local array, as MMA's; indices without effects), lane l
// giving in At the word index of row l%8 of matrix l/8 (package kernel's
// doc). Trans loads the matrices transposed. The rules are MMA's: every
// thread of a group or none (Func.Barriers set), only in kernels whose
// MaxThreads is a positive multiple of 32. CUDA emits ldmatrix; every other
// dialect gets opt.Portable's rewrite (the lanes' At through a shared
// scratch array between Barriers).
type LoadMatrices struct {
	Frag  Expr
	Src   *Ref
	At    Expr
	N     int
	Trans bool
	Pos   Pos
}

// CopyAsync is kernel.CopyAsync: the thread copies the 16 bytes of vector
// SrcIndex of buffer Src (elements 4·SrcIndex..+3, F32 or U32) to elements
// 4·DstIndex..+3 of the shared U32 array Dst, asynchronously on CUDA sm_80
// and newer (cp.async), a plain copy elsewhere (opt.Portable's rewrite).
type CopyAsync struct {
	Dst      *Ref
	DstIndex Expr
	Src      *Ref
	SrcIndex Expr
	Pos      Pos
}

// CopyAsyncCommit is kernel.CopyAsyncCommit; CopyAsyncWait is
// kernel.CopyAsyncWait(N). Only CUDA emits them; opt.Portable drops them.
type CopyAsyncCommit struct{ Pos Pos }

// CopyAsyncWait: see CopyAsyncCommit.
type CopyAsyncWait struct {
	N   int
	Pos Pos
}

// Block is a nested block ({ ... } in the source), for scoping.
type Block struct {
	Body []Stmt
	Pos  Pos
}

func (s *Decl) StmtPos() Pos      { return s.Pos }
func (s *Assign) StmtPos() Pos    { return s.Pos }
func (s *ExprStmt) StmtPos() Pos  { return s.Pos }
func (s *If) StmtPos() Pos        { return s.Pos }
func (s *For) StmtPos() Pos       { return s.Pos }
func (s *Break) StmtPos() Pos     { return s.Pos }
func (s *Continue) StmtPos() Pos  { return s.Pos }
func (s *Return) StmtPos() Pos    { return s.Pos }
func (s *Barrier) StmtPos() Pos   { return s.Pos }
func (s *Store4) StmtPos() Pos    { return s.Pos }
func (s *Block) StmtPos() Pos     { return s.Pos }
func (s *MatMulAdd) StmtPos() Pos { return s.Pos }
func (s *MMA) StmtPos() Pos       { return s.Pos }

func (s *LoadMatrices) StmtPos() Pos    { return s.Pos }
func (s *CopyAsync) StmtPos() Pos       { return s.Pos }
func (s *CopyAsyncCommit) StmtPos() Pos { return s.Pos }
func (s *CopyAsyncWait) StmtPos() Pos   { return s.Pos }
