package collective

import (
	"bufio"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/anygpu/gpu/errors"
)

// Bootstrap carries a communicator's UniqueID from rank 0 to the other
// ranks before they join (Join). Rank 0 calls Publish once; every other rank
// calls Fetch, which waits until the id is there or ctx ends. Any channel the
// program already has can implement it (MPI, a job scheduler's key-value
// store, an environment variable); File and TCP are two small ones.
type Bootstrap interface {
	Publish(ctx context.Context, id UniqueID) error
	Fetch(ctx context.Context) (UniqueID, error)
}

// idHeader starts what File writes and what TCP sends.
const idHeader = "anygpu-nccl-id 1"

// File is a Bootstrap through a file that every rank can read: a shared
// directory for processes of one host, a network file system across hosts.
// Rank 0 writes Path atomically (a temporary file renamed into place); the
// other ranks poll for it. Use a fresh Path for each communicator (a job id
// in the name): a file left from an earlier run would hand out a stale id.
type File struct {
	Path string
	// Poll is the pause between Fetch's reads; 20 ms when zero.
	Poll time.Duration
}

var _ Bootstrap = File{}

// Publish writes id to Path.
func (f File) Publish(ctx context.Context, id UniqueID) error {
	const op = "publish id to file"
	if f.Path == "" {
		return invalid(op, "File.Path is empty")
	}
	if err := ctx.Err(); err != nil {
		return errors.Wrap(err, Backend, op)
	}
	dir := filepath.Dir(f.Path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(f.Path)+".*")
	if err != nil {
		return &errors.Error{Backend: Backend, Op: op, Category: errors.Unavailable, Err: err,
			Hint: "File.Path must be in a directory every rank can read and rank 0 can write"}
	}
	_, err = fmt.Fprintf(tmp, "%s\n%s\n", idHeader, id)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), f.Path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return &errors.Error{Backend: Backend, Op: op, Category: errors.Unavailable, Err: err,
			Hint: "check that the directory of File.Path is writable and not full"}
	}
	return nil
}

// Fetch waits until Path holds an id, and returns it.
func (f File) Fetch(ctx context.Context) (UniqueID, error) {
	const op = "fetch id from file"
	if f.Path == "" {
		return UniqueID{}, invalid(op, "File.Path is empty")
	}
	poll := f.Poll
	if poll <= 0 {
		poll = 20 * time.Millisecond
	}
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return UniqueID{}, &errors.Error{Backend: Backend, Op: op, Category: errors.Timeout, Err: ctx.Err(),
				Msg:  fmt.Sprintf("%s did not appear before the context ended: %v", f.Path, ctx.Err()),
				Hint: "start rank 0 with the same File.Path, on a file system this rank sees"}
		case <-t.C:
		}
		b, err := os.ReadFile(f.Path)
		if err == nil {
			id, perr := parseIDText(string(b))
			if perr == nil {
				return id, nil
			}
			return UniqueID{}, &errors.Error{Backend: Backend, Op: op, Category: errors.InvalidArgument, Err: perr,
				Msg: fmt.Sprintf("%s is not an id file: %v", f.Path, perr), Hint: "give the bootstrap a path of its own"}
		}
		if !os.IsNotExist(err) {
			return UniqueID{}, &errors.Error{Backend: Backend, Op: op, Category: errors.Unavailable, Err: err,
				Hint: "check that this rank can read File.Path"}
		}
		t.Reset(poll)
	}
}

// parseIDText reads the header line and the id in hexadecimal.
func parseIDText(s string) (UniqueID, error) {
	head, rest, ok := strings.Cut(s, "\n")
	if !ok || strings.TrimSpace(head) != idHeader {
		return UniqueID{}, fmt.Errorf("no %q header", idHeader)
	}
	return ParseUniqueID(rest)
}

// TCP is a Bootstrap over TCP: rank 0 listens on Addr and hands the id to
// each rank that connects and presents the Key; the other ranks dial Addr,
// retrying until rank 0 listens or ctx ends. Publish returns once Ranks-1
// ranks have fetched the id (at once when Ranks is 1), and stops listening.
// The same works across hosts: Addr is then rank 0's host:port as the others
// reach it (rank 0 may listen on ":port").
type TCP struct {
	Addr  string // host:port: rank 0 listens, the others dial
	Ranks int    // ranks in the communicator
	// Key, when set, must be the same on every rank: a rank that presents
	// another is refused the id (a second job on the same port).
	Key string
	// Listener, when set on rank 0, is used instead of listening on Addr
	// (a listener on port 0, whose address the others learn otherwise).
	Listener net.Listener
}

var _ Bootstrap = TCP{}

// hello is what a fetching rank sends: the header and a hash of the key.
func (t TCP) hello() string {
	sum := sha256.Sum256([]byte("anygpu-nccl-key:" + t.Key))
	return idHeader + " " + hex.EncodeToString(sum[:]) + "\n"
}

// tcpStep bounds each exchange on a connection.
const tcpStep = 10 * time.Second

// Publish serves id to Ranks-1 fetching ranks.
func (t TCP) Publish(ctx context.Context, id UniqueID) error {
	const op = "publish id over TCP"
	if t.Ranks < 1 {
		return invalid(op, "TCP.Ranks is %d: set it to the communicator's size", t.Ranks)
	}
	ln := t.Listener
	if ln == nil {
		if t.Addr == "" {
			return invalid(op, "TCP.Addr is empty")
		}
		var err error
		var lc net.ListenConfig
		if ln, err = lc.Listen(ctx, "tcp", t.Addr); err != nil {
			return &errors.Error{Backend: Backend, Op: op, Category: errors.Unavailable, Err: err,
				Hint: "TCP.Addr must be a free port on this host (host:port or :port)"}
		}
	}
	defer ln.Close()
	want := t.hello()
	stop := context.AfterFunc(ctx, func() { _ = ln.Close() })
	defer stop()
	done := make(chan struct{})
	defer close(done) // before ln.Close: stops the goroutines below
	results := make(chan bool)
	acceptErr := make(chan error, 1)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				acceptErr <- err
				return
			}
			go func() {
				ok := serveID(c, want, id)
				select {
				case results <- ok:
				case <-done:
				}
			}()
		}
	}()
	for remaining := t.Ranks - 1; remaining > 0; {
		select {
		case ok := <-results:
			if ok {
				remaining--
			}
		case err := <-acceptErr:
			if ctx.Err() != nil {
				return &errors.Error{Backend: Backend, Op: op, Category: errors.Timeout, Err: ctx.Err(),
					Msg:  fmt.Sprintf("%d of %d ranks had not fetched the id when the context ended", remaining, t.Ranks-1),
					Hint: fmt.Sprintf("start all %d ranks with the same TCP.Addr and Key", t.Ranks)}
			}
			return &errors.Error{Backend: Backend, Op: op, Category: errors.Unavailable, Err: err, Hint: "the listener failed: retry with another port"}
		}
	}
	return nil
}

// serveID hands id to one connection that presents the expected hello.
func serveID(c net.Conn, want string, id UniqueID) bool {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(tcpStep))
	line, err := bufio.NewReader(io.LimitReader(c, 256)).ReadString('\n')
	if err != nil || subtle.ConstantTimeCompare([]byte(line), []byte(want)) != 1 {
		_, _ = io.WriteString(c, "refused\n")
		return false
	}
	_, err = c.Write(id[:])
	return err == nil
}

// Fetch dials Addr until rank 0 answers, and reads the id.
func (t TCP) Fetch(ctx context.Context) (UniqueID, error) {
	const op = "fetch id over TCP"
	if t.Addr == "" {
		return UniqueID{}, invalid(op, "TCP.Addr is empty")
	}
	hello := t.hello()
	var d net.Dialer
	pause := 10 * time.Millisecond
	var last error
	for {
		c, err := d.DialContext(ctx, "tcp", t.Addr)
		if err == nil {
			id, ferr := readID(ctx, c, hello)
			if ferr == nil {
				return id, nil
			}
			if errors.CategoryOf(ferr) == errors.InvalidArgument {
				return UniqueID{}, errors.Wrap(ferr, Backend, op)
			}
			last = ferr
		} else {
			last = err
		}
		select {
		case <-ctx.Done():
			return UniqueID{}, &errors.Error{Backend: Backend, Op: op, Category: errors.Timeout, Err: ctx.Err(),
				Msg:  fmt.Sprintf("rank 0 at %s did not hand out the id before the context ended (last: %v)", t.Addr, last),
				Hint: "start rank 0 with the same TCP.Addr, and check that this host reaches it"}
		case <-time.After(pause):
		}
		pause = min(2*pause, 500*time.Millisecond)
	}
}

// readID sends the hello on c and reads the id.
func readID(ctx context.Context, c net.Conn, hello string) (UniqueID, error) {
	defer c.Close()
	deadline := time.Now().Add(tcpStep)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	_ = c.SetDeadline(deadline)
	if _, err := io.WriteString(c, hello); err != nil {
		return UniqueID{}, err
	}
	var id UniqueID
	n, err := io.ReadFull(c, id[:])
	if err != nil {
		if n > 0 && strings.HasPrefix(string(id[:n]), "refused") {
			return UniqueID{}, invalid("fetch id over TCP", "rank 0 refused the key: every rank needs the same TCP.Key")
		}
		return UniqueID{}, err
	}
	return id, nil
}
