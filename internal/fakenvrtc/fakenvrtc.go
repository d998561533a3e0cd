// Package fakenvrtc builds a stand-in for libnvrtc with the system C
// compiler, for tests of the NVRTC package and the CUDA backend on machines
// without the CUDA toolkit. It compiles nothing: the "PTX" of a program is
// its source text followed by one line ".entry LOWERED" per name
// expression, and a program whose source contains "#error" fails with
// NVRTC_ERROR_COMPILATION and that line in the log, as does one with a name
// expression whose identifier (up to '<') the source lacks, or with
// template arguments when the source has no template. The lowered name of a
// name expression is "_Z" followed by the expression's letters and digits
// (a stand-in for a mangled name: distinct for distinct expressions of the
// tests). The CUBIN, for an sm_XY architecture, is the same text. The
// library reports NVRTC 99.0 (a version no real NVRTC has, so its results
// never share kernel-cache keys with a real one's, even in a shared cache
// directory) and the architectures 75 to 120.
//
// When $FAKENVRTC_LOG names a file, each nvrtcCompileProgram appends one line
// to it: "compile NAME" and the options, separated by '|', for tests to read.
package fakenvrtc

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// Build compiles the fake library into dir as libnvrtc.so.13 and returns its
// path. It fails when no C compiler is available (tests skip then).
func Build(dir string) (string, error) {
	if runtime.GOOS != "linux" {
		return "", fmt.Errorf("the fake NVRTC is built on Linux only")
	}
	cc, err := exec.LookPath("cc")
	if err != nil {
		if cc, err = exec.LookPath("gcc"); err != nil {
			return "", fmt.Errorf("no C compiler: %w", err)
		}
	}
	src := filepath.Join(dir, "fakenvrtc.c")
	if err := os.WriteFile(src, []byte(source), 0o644); err != nil {
		return "", err
	}
	out := filepath.Join(dir, "libnvrtc.so.13")
	if b, err := exec.Command(cc, "-shared", "-fPIC", "-Wall", "-o", out, src).CombinedOutput(); err != nil {
		return "", fmt.Errorf("%s: %v\n%s", cc, err, b)
	}
	return out, nil
}

const source = `#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXNAMES 64
typedef struct {
	char *src, *name, *out, *log;
	int n; char *exprs[MAXNAMES], *lowered[MAXNAMES];
	int cubin;
} prog;

static const char *names[] = {"NVRTC_SUCCESS", "NVRTC_ERROR_OUT_OF_MEMORY", "NVRTC_ERROR_PROGRAM_CREATION_FAILURE",
	"NVRTC_ERROR_INVALID_INPUT", "NVRTC_ERROR_INVALID_PROGRAM", "NVRTC_ERROR_INVALID_OPTION", "NVRTC_ERROR_COMPILATION",
	"NVRTC_ERROR_BUILTIN_OPERATION_FAILURE", "NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION",
	"NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION", "NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID", "NVRTC_ERROR_INTERNAL_ERROR"};

const char *nvrtcGetErrorString(int r) { return r >= 0 && r < 12 ? names[r] : "NVRTC_ERROR unknown"; }
int nvrtcVersion(int *major, int *minor) { *major = 99; *minor = 0; return 0; }
int nvrtcGetNumSupportedArchs(int *n) { *n = 6; return 0; }
int nvrtcGetSupportedArchs(int *a) { int v[] = {75, 80, 86, 89, 90, 120}; memcpy(a, v, sizeof v); return 0; }

int nvrtcCreateProgram(prog **p, const char *src, const char *name, int nh, const char *const *h, const char *const *inc) {
	if (!src) return 3;
	prog *x = calloc(1, sizeof *x);
	x->src = strdup(src); x->name = strdup(name ? name : "default_program");
	*p = x; return 0;
}

int nvrtcDestroyProgram(prog **p) {
	prog *x = *p;
	free(x->src); free(x->name); free(x->out); free(x->log);
	for (int i = 0; i < x->n; i++) { free(x->exprs[i]); free(x->lowered[i]); }
	free(x); *p = 0; return 0;
}

int nvrtcAddNameExpression(prog *p, const char *e) {
	if (p->n == MAXNAMES) return 1;
	p->exprs[p->n] = strdup(e);
	char *l = malloc(strlen(e) + 3); char *q = l; *q++ = '_'; *q++ = 'Z';
	for (const char *s = e; *s; s++) if ((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_') *q++ = *s;
	*q = 0;
	p->lowered[p->n++] = l;
	return 0;
}

int nvrtcCompileProgram(prog *p, int n, const char *const *opts) {
	const char *path = getenv("FAKENVRTC_LOG");
	if (path && *path) {
		FILE *f = fopen(path, "a");
		if (f) {
			fprintf(f, "compile %s", p->name);
			for (int i = 0; i < n; i++) fprintf(f, "|%s", opts[i]);
			fputc('\n', f); fclose(f);
		}
	}
	for (int i = 0; i < n; i++) if (strncmp(opts[i], "--gpu-architecture=sm_", 22) == 0) p->cubin = 1;
	const char *err = strstr(p->src, "#error");
	if (err) {
		const char *end = strchr(err, '\n'); size_t k = end ? (size_t)(end - err) : strlen(err);
		p->log = malloc(k + 64); snprintf(p->log, k + 64, "%s(1): error: %.*s\n", p->name, (int)k, err);
		return 6;
	}
	for (int i = 0; i < p->n; i++) {
		size_t k = strcspn(p->exprs[i], "< ");
		char id[256]; snprintf(id, sizeof id, "%.*s", (int)(k < 200 ? k : 200), p->exprs[i]);
		if (!strstr(p->src, id)) {
			p->log = malloc(512);
			snprintf(p->log, 512, "%s(1): error: identifier \"%s\" is undefined\n", p->name, id);
			return 6;
		}
		if (strchr(p->exprs[i], '<') && !strstr(p->src, "template")) {
			p->log = malloc(512);
			snprintf(p->log, 512, "%s(1): error: \"%s\" is not a template\n", p->name, id);
			return 6;
		}
	}
	size_t size = strlen(p->src) + 2;
	for (int i = 0; i < p->n; i++) size += strlen(p->lowered[i]) + 9;
	p->out = malloc(size);
	strcpy(p->out, p->src); strcat(p->out, "\n");
	for (int i = 0; i < p->n; i++) { strcat(p->out, ".entry "); strcat(p->out, p->lowered[i]); strcat(p->out, "\n"); }
	return 0;
}

static int blob(prog *p, const char *s, size_t *n) { if (!s) return 4; *n = strlen(s) + 1; return 0; }
int nvrtcGetPTXSize(prog *p, size_t *n) { return blob(p, p->out, n); }
int nvrtcGetPTX(prog *p, char *b) { if (!p->out) return 4; strcpy(b, p->out); return 0; }
int nvrtcGetCUBINSize(prog *p, size_t *n) { if (!p->cubin) { *n = 0; return 0; } return blob(p, p->out, n); }
int nvrtcGetCUBIN(prog *p, char *b) { if (!p->out || !p->cubin) return 4; strcpy(b, p->out); return 0; }
int nvrtcGetProgramLogSize(prog *p, size_t *n) { *n = p->log ? strlen(p->log) + 1 : 1; return 0; }
int nvrtcGetProgramLog(prog *p, char *b) { strcpy(b, p->log ? p->log : ""); return 0; }
int nvrtcGetLoweredName(prog *p, const char *e, const char **out) {
	if (!p->out) return 9;
	for (int i = 0; i < p->n; i++) if (strcmp(p->exprs[i], e) == 0) { *out = p->lowered[i]; return 0; }
	return 10;
}
`
