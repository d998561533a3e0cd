package collective

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anygpu/gpu/errors"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Helper processes: the test binary re-executed with envHelper set runs one
// role and exits (see TestMain).
const (
	envHelper = "ANYGPU_COLLECTIVE_HELPER" // fetch-file, fetch-tcp, rank
	envArg    = "ANYGPU_COLLECTIVE_ARG"    // the file path or TCP address
	envRank   = "ANYGPU_COLLECTIVE_RANK"
	envRanks  = "ANYGPU_COLLECTIVE_RANKS"
)

func TestMain(m *testing.M) {
	switch os.Getenv(envHelper) {
	case "":
		os.Exit(m.Run())
	case "fetch-file", "fetch-tcp":
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		var b Bootstrap = File{Path: os.Getenv(envArg)}
		if os.Getenv(envHelper) == "fetch-tcp" {
			b = TCP{Addr: os.Getenv(envArg), Key: "test"}
		}
		id, err := b.Fetch(ctx)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println(id)
		os.Exit(0)
	case "rank":
		os.Exit(rankMain()) // gpu_test.go
	default:
		fmt.Fprintln(os.Stderr, "unknown helper", os.Getenv(envHelper))
		os.Exit(2)
	}
}

// helper starts the test binary in the given role.
func helper(t *testing.T, role, arg string, env ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), append([]string{envHelper + "=" + role, envArg + "=" + arg}, env...)...)
	return cmd
}

func testID(seed byte) UniqueID {
	var id UniqueID
	for i := range id {
		id[i] = seed + byte(i)
	}
	return id
}

func ctxT(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// fetchAll runs n fetches at once and returns their ids and errors.
func fetchAll(ctx context.Context, b Bootstrap, n int) ([]UniqueID, []error) {
	ids, errs := make([]UniqueID, n), make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids[i], errs[i] = b.Fetch(ctx)
		}()
	}
	wg.Wait()
	return ids, errs
}

func TestFileBootstrapGoroutines(t *testing.T) {
	ctx := ctxT(t, 10*time.Second)
	f := File{Path: filepath.Join(t.TempDir(), "job-1.id"), Poll: 5 * time.Millisecond}
	id := testID(7)
	go func() {
		time.Sleep(50 * time.Millisecond) // the fetchers wait for it
		_ = f.Publish(ctx, id)
	}()
	ids, errs := fetchAll(ctx, f, 3)
	for i := range ids {
		require.NoError(t, errs[i])
		assert.Equal(t, id, ids[i])
	}
}

func TestFileBootstrapErrors(t *testing.T) {
	dir := t.TempDir()
	short := ctxT(t, 60*time.Millisecond)
	_, err := File{Path: filepath.Join(dir, "never")}.Fetch(short)
	assert.True(t, errors.Is(err, errors.Timeout), "%v", err)
	assert.True(t, errors.Is(File{}.Publish(context.Background(), testID(1)), errors.InvalidArgument))
	_, err = File{}.Fetch(context.Background())
	assert.True(t, errors.Is(err, errors.InvalidArgument))
	bad := filepath.Join(dir, "bad")
	require.NoError(t, os.WriteFile(bad, []byte("something else\n"), 0o644))
	_, err = File{Path: bad}.Fetch(context.Background())
	assert.True(t, errors.Is(err, errors.InvalidArgument), "%v", err)
	err = File{Path: filepath.Join(dir, "no", "such", "dir", "id")}.Publish(context.Background(), testID(1))
	assert.True(t, errors.Is(err, errors.Unavailable), "%v", err)
}

func TestTCPBootstrapGoroutines(t *testing.T) {
	ctx := ctxT(t, 10*time.Second)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	id := testID(42)
	published := make(chan error, 1)
	go func() { published <- TCP{Listener: ln, Ranks: 4, Key: "job"}.Publish(ctx, id) }()

	// A rank with the wrong key is refused and does not count.
	_, err = TCP{Addr: addr, Key: "other"}.Fetch(ctx)
	assert.True(t, errors.Is(err, errors.InvalidArgument), "%v", err)
	assert.Contains(t, err.Error(), "Key")

	ids, errs := fetchAll(ctx, TCP{Addr: addr, Key: "job"}, 3)
	for i := range ids {
		require.NoError(t, errs[i])
		assert.Equal(t, id, ids[i])
	}
	require.NoError(t, <-published)
}

func TestTCPBootstrapFetchBeforeListen(t *testing.T) {
	ctx := ctxT(t, 10*time.Second)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close()) // nobody listens yet: the fetcher retries
	got := make(chan UniqueID, 1)
	go func() {
		id, _ := TCP{Addr: addr}.Fetch(ctx)
		got <- id
	}()
	time.Sleep(100 * time.Millisecond)
	require.NoError(t, TCP{Addr: addr, Ranks: 2}.Publish(ctx, testID(3)))
	assert.Equal(t, testID(3), <-got)
}

func TestTCPBootstrapErrors(t *testing.T) {
	short := ctxT(t, 100*time.Millisecond)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	_, err = TCP{Addr: addr}.Fetch(short)
	assert.True(t, errors.Is(err, errors.Timeout), "%v", err)

	ln, err = net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	err = TCP{Listener: ln, Ranks: 3}.Publish(ctxT(t, 100*time.Millisecond), testID(1))
	assert.True(t, errors.Is(err, errors.Timeout), "%v", err)

	assert.NoError(t, TCP{Addr: "127.0.0.1:0", Ranks: 1}.Publish(context.Background(), testID(1)), "one rank: nobody to serve")
	assert.True(t, errors.Is(TCP{Addr: "127.0.0.1:0"}.Publish(context.Background(), testID(1)), errors.InvalidArgument), "no Ranks")
	assert.True(t, errors.Is(TCP{Ranks: 2}.Publish(context.Background(), testID(1)), errors.InvalidArgument), "no Addr")
	_, err = TCP{}.Fetch(context.Background())
	assert.True(t, errors.Is(err, errors.InvalidArgument))
}

// TestBootstrapProcesses hands an id to two other processes (the test binary
// re-executed), through a file and through TCP.
func TestBootstrapProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	id := testID(99)
	run := func(t *testing.T, role, arg string, publish func(ctx context.Context) error) {
		ctx := ctxT(t, 30*time.Second)
		var cmds []*exec.Cmd
		var outs []*strings.Builder
		for range 2 {
			cmd := helper(t, role, arg)
			out := &strings.Builder{}
			cmd.Stdout, cmd.Stderr = out, out
			require.NoError(t, cmd.Start())
			cmds, outs = append(cmds, cmd), append(outs, out)
		}
		require.NoError(t, publish(ctx))
		for i, cmd := range cmds {
			require.NoError(t, cmd.Wait(), "helper %d: %s", i, outs[i])
			assert.Equal(t, id.String(), strings.TrimSpace(outs[i].String()))
		}
	}
	t.Run("file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "job.id")
		run(t, "fetch-file", path, func(ctx context.Context) error {
			time.Sleep(100 * time.Millisecond)
			return File{Path: path}.Publish(ctx, id)
		})
	})
	t.Run("tcp", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		run(t, "fetch-tcp", ln.Addr().String(), func(ctx context.Context) error {
			return TCP{Listener: ln, Ranks: 3, Key: "test"}.Publish(ctx, id)
		})
	})
}
