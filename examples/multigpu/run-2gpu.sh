#!/usr/bin/env bash
# Copied into .devbundle with torch_bench.py (see the issue 9 note); the command run was: bash .devbundle/mg.sh
# Issue 9 on a machine with two GPUs; run from the repository root. Logs and
# summary.txt go to $OUT. Every program starts with NVLink multicast off.
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/mgout}; mkdir -p "$OUT"
ROOT=$(pwd); B=$ROOT/.devbundle; BIN=/tmp/mgbin; mkdir -p $BIN
PY=${PY:-python3}; END=${END:-395}
S=$OUT/summary.txt; : > "$S"
say() { echo "$*" | tee -a "$S"; }
# tmo N: N seconds, or what is left before END
tmo() { local r=$((END - SECONDS)); [ "$r" -lt "$1" ] && echo $((r > 5 ? r : 5)) || echo "$1"; }
for f in "$B"/bin/*.gz; do n=$(basename "$f" .gz); gunzip -c "$f" > "$BIN/$n"; chmod +x "$BIN/$n"; done
say "== $(nvidia-smi -L 2>&1 | tr '\n' ' ')"
nvidia-smi topo -m 2>&1 | head -3 | tee -a "$S"
export ANYGPU_TEST_REQUIRE=cuda
for d in 0 1; do
  (cd backend/cuda && ANYGPU_DEVICE=$d timeout "$(tmo 60)" "$BIN/backend_cuda.test" -test.v -test.run '^TestConformance$') > "$OUT/conf$d.log" 2>&1
  rc=$?
  say "conformance device $d: rc=$rc pass=$(grep -c -- '--- PASS' "$OUT/conf$d.log") fail=$(grep -c -- '--- FAIL' "$OUT/conf$d.log") skip=$(grep -c -- '--- SKIP' "$OUT/conf$d.log") at ${SECONDS}s"
  grep -E -- '--- FAIL|conformance on' "$OUT/conf$d.log" | head -4 | tee -a "$S"
done
(cd backend/cuda && timeout "$(tmo 60)" "$BIN/backend_cuda.test" -test.v -test.run 'Peer') > "$OUT/peer.log" 2>&1
say "peer tests: rc=$? at ${SECONDS}s"
grep -E -- '--- (FAIL|SKIP)|BENCH|: peers' "$OUT/peer.log" | head -12 | tee -a "$S"
timeout "$(tmo 100)" $PY "$B/torch_bench.py" > "$OUT/torch.log" 2>&1
say "torch: rc=$? at ${SECONDS}s"
grep -E 'TORCH|^torch|Error' "$OUT/torch.log" | head -8 | tee -a "$S"
(cd collective && ANYGPU_TEST_REQUIRE=cuda,nccl timeout "$(tmo 20)" "$BIN/collective.test" -test.v -test.run 'TestLibrarySearch') > "$OUT/coll.log" 2>&1
if [ $? -ne 0 ]; then
  export ANYGPU_NCCL_LIBRARY=$($PY -c 'import os, nvidia.nccl as m; print(os.path.join(list(m.__path__)[0], "lib", "libnccl.so.2"))')
  say "NCCL search failed; using ANYGPU_NCCL_LIBRARY=$ANYGPU_NCCL_LIBRARY"
fi
grep -E 'found NCCL|no NCCL' "$OUT/coll.log" | tee -a "$S"
(cd collective && ANYGPU_TEST_REQUIRE=cuda,nccl timeout "$(tmo 120)" "$BIN/collective.test" -test.v -test.run 'TestLocal|TestTwoProcesses') >> "$OUT/coll.log" 2>&1
say "collective tests: rc=$? at ${SECONDS}s"
grep -E -- '--- (PASS|FAIL|SKIP)|BENCH|NCCL [0-9]|joined' "$OUT/coll.log" | head -40 | tee -a "$S"
timeout "$(tmo 90)" "$BIN/multigpu" -backend cuda > "$OUT/multigpu.log" 2>&1
say "multigpu: rc=$? at ${SECONDS}s"
tail -9 "$OUT/multigpu.log" | tee -a "$S"
say "done at ${SECONDS}s"
