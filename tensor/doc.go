// Package tensor is n-dimensional arrays on a device, for inference: a
// Tensor is a device buffer with a shape, strides, an offset and a dtype,
// and its ops are kernels written once in Go (package kernel) that run on
// every backend.
//
//	dev, _ := gpu.Open(ctx)
//	x, _ := tensor.FromSlice(ctx, dev, []float32{1, 2, 3, 4, 5, 6}, 2, 3)
//	p, _ := tensor.Softmax(x)          // on the device
//	probs, _ := p.ToFloat32(ctx)       // the one copy back
//
// # Dtypes
//
// Float32, Float16, BFloat16, Int8, Int32, Uint8, Float8E4M3 (OCP E4M3 FN)
// and Float8E5M2 are stored; Cast converts any dtype to any other on the
// device, rounding to nearest even, bit for bit as the host conversions
// (Float16FromFloat32 and its siblings) do. The ops compute in Float32,
// Float16 and BFloat16: their operands share one dtype, which the result
// has (ArgMax returns Int32). A 16-bit tensor is stored in 16 bits and
// widened to float32 as an op reads it; the op computes in float32
// (reductions, softmax, norms, products and attention accumulate in
// float32) and rounds its result to the dtype, to nearest even, once. Other
// dtypes are Cast first (a NotSupported error says so).
//
// # Views
//
// Slice, Reshape, Transpose, Permute and Expand (broadcast, stride 0) make
// views that share the buffer; none copies. Reshape refuses, with an
// InvalidArgument error, a shape no strides can give (flattening a
// transposed matrix): Contiguous copies then, on the device, and only then.
// Ops take any view and return contiguous tensors. Every shape error is an
// InvalidArgument naming the shapes: "tensor: reshape [2 3] to [4 2]: 6
// elements vs 8". Tensors have at most MaxRank dimensions and 2³²-1
// elements.
//
// # Ownership
//
// Every tensor, view or not, holds a reference to its buffer and is closed
// when done; the buffer is freed with the last reference. Closing a tensor
// does not invalidate its views. A buffer that queued device work still uses
// is freed at the device's next synchronization (ToHost and the other
// readers, Synchronize), or when 256 MiB wait.
//
// # Residency and transfers
//
// A tensor stays on its device. Bytes move only in the constructors
// (FromSlice, FromFloat32, FromBytes: H2D), the readers (ToHost, ToFloat32,
// Bytes: D2H) and CopyTo (D2D within a device, Peer between devices); each
// is counted on the tensor (Tensor.Transfers) and on the device
// (DeviceTransfers), and ResetTransfers / ResetDeviceTransfers zero them,
// so a test can assert that a forward pass made exactly one D2H. Peek reads
// a tensor without counting it, for debugging. Ops are kernels, not
// transfers, and so are Zeros' fill and Contiguous' copy.
//
// # Transformer ops
//
// MatMul (rank 2 or 3, batches broadcasting) and Linear (x·w + bias) take
// strided operands without a copy: a PyTorch Linear weight [out in] is
// w.Transpose(0, 1). A product goes to the device's matrix library
// (gpu.Stream.MatMul: cuBLASLt on CUDA, tensor cores in float16 and
// bfloat16) when it has one for the dtype and each operand has a unit
// stride along its rows or columns; a device without one is asked once
// per dtype. Otherwise a float32 product of row-major matrices with 64
// rows or more goes to the built-in sgemm (package kernels); others to a
// tiled kernel with the bias fused, one-row products (decode) to a
// matrix-vector kernel, both cutting k into ranges when the output alone
// would leave compute units idle. Embedding looks up
// rows by Int32 ids kept on the device; Rotary is the rotate-half rotary
// position embedding. A KV cache is a preallocated [heads ctx dim] tensor
// per layer for keys and one for values: AppendKV writes new positions
// (from any view, such as a slice of a fused QKV projection) and Attention
// computes causal attention of new queries over the cache, FlashAttention's
// online softmax over tiles of keys, the score matrix never stored: prefill
// is many queries at position 0, decode one query at the cache's length.
// A paged KV cache (vLLM's layout) keeps many sequences' positions in one
// page pool [pages heads page dim] per layer, each sequence's pages listed
// by its Int32 block table: AppendPagedKV scatters new positions into the
// pool and PagedAttention reads them through the table, with Attention's
// kernels. For a decode step captured once and replayed (whose launches
// keep their scalars), AppendKVAt, AppendPagedKVAt, AttentionAt,
// PagedAttentionAt and RotaryAt read the position from an Int32 tensor on
// the device, which Advance moves on; their launches depend on the shapes
// alone. ArgMaxInto and Assign write into a fixed tensor the next replay
// reads (the next token's id, for Embedding).
//
// # Devices and launches
//
// Ops run on the device's default stream, in call order, and return before
// the work is done; the readers wait for it. The package compiles its ops
// for a device on first use (Prepare does it under a context) and chooses each launch from DeviceInfo: the
// block from the device's limits (and, on CUDA, the occupancy calculator,
// profiling.SuggestBlockSize), the grid from its compute units; kernels
// stride over whatever the grid does not cover. Release drops what the
// package keeps for a device.
package tensor
