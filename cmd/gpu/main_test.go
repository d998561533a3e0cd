package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runArgs runs the command line in-process and returns its exit status and
// output.
func runArgs(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestUsage(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout string // substring of stdout ("" for none expected)
		stderr string // substring of stderr
	}{
		{"no command", nil, exitUsage, "", "usage: gpu COMMAND"},
		{"help", []string{"help"}, exitOK, "usage: gpu COMMAND", ""},
		{"-h", []string{"-h"}, exitOK, "usage: gpu COMMAND", ""},
		{"--help", []string{"--help"}, exitOK, "usage: gpu COMMAND", ""},
		{"help bench", []string{"help", "bench"}, exitOK, "--backend", ""},
		{"help nosuch", []string{"help", "nosuch"}, exitUsage, "", `unknown command "nosuch"`},
		{"unknown command", []string{"frobnicate"}, exitUsage, "", `gpu: unknown command "frobnicate"`},
		{"bench -h", []string{"bench", "-h"}, exitOK, "usage: gpu bench", ""},
		{"info -h", []string{"info", "-h"}, exitOK, "usage: gpu info", ""},
		{"bad flag", []string{"info", "--bogus"}, exitUsage, "", "flag provided but not defined: -bogus"},
		{"stray argument", []string{"bench", "--quick", "extra"}, exitUsage, "", `unexpected argument "extra"`},
		{"--version", []string{"--version"}, exitOK, "gpu ", ""},
		{"-version", []string{"-version"}, exitOK, "go1.", ""},
		{"help watch", []string{"help", "watch"}, exitOK, "--interval", ""},
		{"version argument", []string{"version", "x"}, exitUsage, "", "usage: gpu version"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runArgs(t, tc.args...)
			assert.Equal(t, tc.code, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
			if tc.stdout != "" {
				assert.Contains(t, stdout, tc.stdout)
			} else {
				assert.Empty(t, stdout)
			}
			if tc.stderr != "" {
				assert.Contains(t, stderr, tc.stderr)
				if tc.code == exitUsage {
					assert.Contains(t, stderr, "usage:", "a usage error shows the usage")
				}
			} else {
				assert.Empty(t, stderr)
			}
		})
	}
}

func TestUsageListsCommands(t *testing.T) {
	_, stdout, _ := runArgs(t, "help")
	for _, c := range commands {
		assert.Contains(t, stdout, "  "+c.name+" ")
	}
}

func TestVersion(t *testing.T) {
	code, stdout, stderr := runArgs(t, "version")
	require.Equal(t, exitOK, code, stderr)
	assert.True(t, strings.HasPrefix(stdout, "gpu "), stdout)
	assert.Contains(t, stdout, "go1.")
}
