package errors_test

import (
	"context"
	"fmt"

	"github.com/anygpu/gpu/errors"
)

func ExampleFromCUDA() {
	err := errors.FromCUDA(2, "alloc 1.0 GiB") // CUDA_ERROR_OUT_OF_MEMORY
	fmt.Println(err)
	fmt.Println(errors.Is(err, errors.OutOfMemory), errors.IsRetryable(err), errors.IsFatal(err))

	fmt.Println(errors.FromCUDA(0, "alloc 1.0 GiB")) // CUDA_SUCCESS
	// Output:
	// cuda: alloc 1.0 GiB: out of memory (CUDA_ERROR_OUT_OF_MEMORY): free memory or use a smaller batch
	// true true false
	// <nil>
}

func ExampleCategoryOf() {
	launch := fmt.Errorf("step 3: %w", errors.FromCUDA(700, "synchronize"))
	for _, err := range []error{
		nil,
		launch,
		context.DeadlineExceeded,
		errors.New("something else"),
	} {
		fmt.Println(errors.CategoryOf(err))
	}
	fmt.Println(errors.IsFatal(launch))
	// Output:
	// none
	// execution
	// timeout
	// internal
	// true
}
