package backendtest

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/anygpu/gpu/internal/kernelfuzz"
)

// fuzzSeedRun matches the line a verbose child prints as a seed starts.
var fuzzSeedRun = regexp.MustCompile(`^=== RUN\s+\S+/seed=(\d+)$`)

// fuzzSeedFail matches the line a verbose child prints for a failed seed.
var fuzzSeedFail = regexp.MustCompile(`^\s*--- FAIL: \S+/seed=\d+ `)

// fuzzChatter matches the lines of a verbose child that say nothing a
// failure report needs.
var fuzzChatter = regexp.MustCompile(`^(=== (RUN|PAUSE|CONT|NAME)\s|\s*--- (PASS|SKIP): |PASS$|ok\s)`)

// fuzzChild is what one child process did.
type fuzzChild struct {
	ran, failed int
	last        uint64 // the seed that started last
	hung        bool   // killed while last ran
	tail        string // its output since last started, when hung
	exitErr     error
	output      string // its output less the chatter
}

// watchKernelFuzz runs the plan's seeds in child processes of the test
// binary (this KernelFuzz subtest alone, with envKernelFuzzChild set) and
// kills a child whose seed runs longer than timeout: that seed is reported
// with its source and counted as failed, and a new child goes on with the
// next seed while the plan lasts. A driver busy in a compiler cannot be
// interrupted from Go, and a thread left spinning there would keep a core
// and the device's locks; killing the process frees both.
func (s *suite) watchKernelFuzz(t *testing.T, plan kernelFuzzPlan, timeout time.Duration) {
	switch {
	case plan.replay:
		t.Logf("replaying seed %d on %s, at most %s", plan.start, s.dev.Name(), timeout)
	case plan.budget > 0:
		t.Logf("fuzzing %s for %s from seed %d, at most %s per seed", s.dev.Name(), plan.budget, plan.start, timeout)
	default:
		t.Logf("fuzzing %s with %d seeds from %d, at most %s per seed", s.dev.Name(), plan.count, plan.start, timeout)
	}
	deadline := time.Now().Add(plan.budget)
	next, left := plan.start, plan.count
	failures, ran := 0, 0
	for failures < kernelFuzzMaxFailures {
		var budget time.Duration
		if plan.budget > 0 {
			if budget = time.Until(deadline); budget <= 0 {
				break
			}
		} else if left == 0 {
			break
		}
		c, err := s.runFuzzChild(t, plan.replay, next, left, budget, timeout)
		if err != nil {
			t.Fatalf("kernel fuzzing: %v", err)
		}
		ran += c.ran
		failures += c.failed
		if c.failed > 0 {
			t.Errorf("kernel fuzzing on %s: %d seeds failed:\n%s", s.dev.Name(), c.failed, c.output)
		}
		if !c.hung {
			if c.exitErr != nil && c.failed == 0 {
				t.Errorf("kernel fuzzing on %s: the child process failed (%v):\n%s", s.dev.Name(), c.exitErr, c.output)
			}
			break
		}
		failures++
		s.reportHungSeed(t, c, timeout)
		if plan.replay {
			break
		}
		if plan.budget == 0 {
			left -= c.last - next + 1
		}
		next = c.last + 1
	}
	t.Logf("%d seeds from %d on %s, %d failed", ran, plan.start, s.dev.Name(), failures)
}

// reportHungSeed fails t for the seed a killed child was running.
func (s *suite) reportHungSeed(t *testing.T, c fuzzChild, timeout time.Duration) {
	p := kernelfuzz.Generate(c.last, kernelFuzzOptions(s.driver.Name()))
	source := p.Source
	if file := os.Getenv(EnvKernelFuzzSource); file != "" {
		if b, err := os.ReadFile(file); err == nil {
			source = string(b)
		}
	}
	t.Errorf("seed %d: %s spent over %s (%s) on the generated kernel below (translating it, compiling it, "+
		"creating its pipelines, running it): the process running it was killed. A valid kernel that takes a "+
		"driver this long is a finding: shrink it (%s=file.go runs a file instead of the seed's source), then fix "+
		"the emitter or keep the construct out of internal/kernelfuzz (its doc lists those kept out, and why).\n"+
		"output since the seed started:\n%s\nreplay: %s\n%s",
		c.last, s.dev.Name(), timeout, EnvKernelFuzzSeedTimeout, EnvKernelFuzzSource, c.tail,
		replayCommand(c.last, s.driver.Name(), t.Name()+"/seed="+strconv.FormatUint(c.last, 10)), numberLines(source))
}

// runFuzzChild runs seeds in a child process: the one seed start when
// replay, else count seeds from start, or seeds from start on for budget
// when count is 0 (the child stops after kernelFuzzMaxFailures failed
// seeds). It kills the
// child when a seed (or the child's start) takes longer than timeout.
func (s *suite) runFuzzChild(t *testing.T, replay bool, start, count uint64, budget, timeout time.Duration) (fuzzChild, error) {
	var c fuzzChild
	exe, err := os.Executable()
	if err != nil {
		return c, fmt.Errorf("find the test binary: %w", err)
	}
	cmd := exec.Command(exe, "-test.run="+replayPattern(t.Name()+"/seed"), "-test.count=1", "-test.v=true",
		"-test.timeout=0")
	env := []string{envKernelFuzzChild + "=1"}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case envKernelFuzzChild, EnvKernelFuzz, EnvKernelFuzzStart:
			continue
		case EnvKernelFuzzSeed, EnvKernelFuzzSource:
			if !replay {
				continue
			}
		}
		env = append(env, kv)
	}
	switch {
	case replay:
	case budget > 0:
		env = append(env, EnvKernelFuzzStart+"="+strconv.FormatUint(start, 10), EnvKernelFuzz+"="+budget.String())
	default:
		env = append(env, EnvKernelFuzzStart+"="+strconv.FormatUint(start, 10), EnvKernelFuzz+"="+strconv.FormatUint(count, 10))
	}
	cmd.Env = env
	pr, pw, err := os.Pipe()
	if err != nil {
		return c, fmt.Errorf("pipe for the child's output: %w", err)
	}
	defer func() { _ = pr.Close() }()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		_ = pw.Close()
		return c, fmt.Errorf("start %s: %w", exe, err)
	}
	_ = pw.Close()

	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var output, tail strings.Builder
	for open := true; open; {
		select {
		case line, ok := <-lines:
			if !ok {
				open = false
				break
			}
			if m := fuzzSeedRun.FindStringSubmatch(line); m != nil {
				c.last, _ = strconv.ParseUint(m[1], 10, 64)
				c.ran++
				tail.Reset()
				timer.Reset(timeout)
			} else {
				tail.WriteString(line + "\n")
			}
			if fuzzSeedFail.MatchString(line) {
				c.failed++
			}
			if !fuzzChatter.MatchString(line) {
				output.WriteString(line + "\n")
			}
		case <-timer.C:
			c.hung = true
			_ = cmd.Process.Kill()
			// Read on until the pipe closes: the child is gone.
			timer.Reset(time.Hour)
		}
	}
	c.exitErr = cmd.Wait()
	c.output, c.tail = output.String(), tail.String()
	if c.hung && c.ran == 0 {
		return c, fmt.Errorf("the child process ran no seed within %s (%s):\n%s", timeout, EnvKernelFuzzSeedTimeout, c.output)
	}
	return c, nil
}
