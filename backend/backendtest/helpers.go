package backendtest

// Helpers the conformance suite shares with the backends' own tests.

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/stretchr/testify/require"
)

// CheckFloats downloads the n float32s of buf on st, waits for them, and
// returns an error naming the first element that is not want(i). It returns
// errors rather than failing a test, so that goroutines may call it.
func CheckFloats(ctx context.Context, st *gpu.Stream, buf *gpu.Buffer, n int, want func(i int) float32) error {
	got := make([]float32, n)
	if err := gpu.Download(st, got, buf); err != nil {
		return err
	}
	if err := st.Synchronize(ctx); err != nil {
		return err
	}
	for i, v := range got {
		if w := want(i); v != w {
			return fmt.Errorf("y[%d] = %v, want %v", i, v, w)
		}
	}
	return nil
}

// RunConcurrently calls work(0) to work(workers-1), each on its own
// goroutine, waits for all of them and fails t with every error they
// returned.
func RunConcurrently(t testing.TB, workers int, work func(w int) error) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[w] = work(w)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
}
