package tensor_test

import (
	"context"
	"fmt"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/tensor"
)

// A row-wise softmax of a transposed view, with the transfers it made.
func Example() {
	ctx := context.Background()
	dev, err := gpu.Open(ctx, gpu.WithBackends("cpu"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dev.Close()
	defer tensor.Release(ctx, dev)

	x, err := tensor.FromSlice(ctx, dev, []float32{1, 2, 3, 1, 2, 3}, 2, 3)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer x.Close()
	xt, _ := x.Transpose(0, 1) // [3 2], a view: no copy
	defer xt.Close()
	p, err := tensor.Softmax(xt)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Close()
	probs, err := p.ToFloat32(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Shape(), probs)
	fmt.Println(tensor.DeviceTransfers(dev).H2D.Count, "upload,", tensor.DeviceTransfers(dev).D2H.Count, "download")

	_, err = x.Reshape(4, 2)
	fmt.Println(err)
	// Output:
	// [3 2] [0.5 0.5 0.5 0.5 0.5 0.5]
	// 1 upload, 1 download
	// tensor: reshape [2 3] to [4 2]: 6 elements vs 8: see package tensor's rules for shapes, views and broadcasting
}
