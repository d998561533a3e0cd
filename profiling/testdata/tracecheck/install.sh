#!/bin/sh
# Installs the Chrome DevTools performance panel's trace engine
# (@paulirish/trace_engine, pinned with its dependencies by package-lock.json)
# outside the repository, where TestChromeTraceInTraceEngine looks for it:
# $ANYGPU_TRACECHECK_DIR, else $TMPDIR/anygpu-tracecheck (/tmp when TMPDIR is
# unset). Needs node (18 or newer) and npm, and the npm registry once.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
dir=${ANYGPU_TRACECHECK_DIR:-${TMPDIR:-/tmp}/anygpu-tracecheck}
mkdir -p "$dir"
cp "$here/package.json" "$here/package-lock.json" "$dir/"
cd "$dir"
npm ci --omit=dev --no-audit --no-fund --loglevel=error
echo "trace engine installed in $dir"
