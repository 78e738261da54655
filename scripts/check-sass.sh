#!/usr/bin/env bash
# Proof the divergence kernels branch for real: their SASS must hold a BSSY/BSYNC pair (the
# convergence barrier the warp reconverges at), a predicated BRA (the split), and one FFMA per path
# (the compiler kept every path's own code, nothing merged or predicated away). And proof the
# streaming kernels hold their W: every W kernel (16-byte loads, independent and dependent) has at
# least W FFMAs, so no chain was folded away.
#   scripts/check-sass.sh LIBRARY_OR_BINARY [--print]
# --print also prints the if/else kernel's SASS from the first BSSY to the last BSYNC.
# Exit 0: every kernel passes; 1: one does not; 77: cuobjdump is not installed (ctest: skipped).
set -uo pipefail
object=${1:?usage: scripts/check-sass.sh LIBRARY_OR_BINARY [--print]}
print=${2:-}
command -v cuobjdump >/dev/null 2>&1 || { echo "cuobjdump not found: SASS check skipped" >&2; exit 77; }
[ -f "$object" ] || { echo "check-sass: '$object' does not exist" >&2; exit 1; }
sass=$(cuobjdump -sass "$object") || { echo "check-sass: cuobjdump failed on $object" >&2; exit 1; }

# The SASS of the first function whose name contains $1, up to the next function.
function_sass() {
  awk -v name="$1" '/Function : /{inside = index($0, name) > 0 && !done; if (inside) done = 1}
                    inside' <<<"$sass"
}

status=0
check() {  # kernel name, FFMAs it must hold at least
  local body ffma
  body=$(function_sass "$1")
  if [ -z "$body" ]; then echo "FAIL $1: not in $object"; status=1; return; fi
  ffma=$(grep -c ' FFMA ' <<<"$body")
  local bssy bsync pbra
  bssy=$(grep -c ' BSSY ' <<<"$body")
  bsync=$(grep -c ' BSYNC ' <<<"$body")
  pbra=$(grep -cE '@!?P[0-9T]+ +BRA ' <<<"$body")
  if [ "$bssy" -ge 1 ] && [ "$bsync" -ge 1 ] && [ "$pbra" -ge 1 ] && [ "$ffma" -ge "$2" ]; then
    echo "ok   $1: $bssy BSSY, $bsync BSYNC, $pbra predicated BRA, $ffma FFMA (>= $2 paths)"
  else
    echo "FAIL $1: $bssy BSSY, $bsync BSYNC, $pbra predicated BRA, $ffma FFMA (need >= 1, >= 1, >= 1, >= $2)"
    status=1
  fi
}
check if_else_kernel 2
check switch_kernel 32
check nested_kernel 4

check_stream() {  # W, dependent (0 or 1)
  local name="stream_kernelILi$1ELb$2ELi16E" body ffma
  body=$(function_sass "$name")
  if [ -z "$body" ]; then echo "FAIL $name: not in $object"; status=1; return; fi
  ffma=$(grep -c ' FFMA ' <<<"$body")
  if [ "$ffma" -ge "$1" ]; then
    echo "ok   stream W = $1 $([ "$2" = 1 ] && echo dependent || echo independent): $ffma FFMA (>= $1)"
  else
    echo "FAIL stream W = $1 $([ "$2" = 1 ] && echo dependent || echo independent): $ffma FFMA, need >= $1"
    status=1
  fi
}
# The loaded-latency probe: between its two clock reads a load and then a store of the loaded
# value, in that order, or the probe times something other than the load.
check_probe() {  # kernel name part
  local body order
  body=$(function_sass "$1")
  if [ -z "$body" ]; then echo "FAIL probe $1: not in $object"; status=1; return; fi
  order=$(grep -oE ' (CS2R|S2UR|S2R) [^;]*SR_CLOCK[^;]*| LDG[.A-Z0-9]* | STG[.A-Z0-9]* ' <<<"$body" |
    sed -E 's/^ +//; s/ .*//; s/^(CS2R|S2UR|S2R)$/CLOCK/; s/^LDG.*/LDG/; s/^STG.*/STG/' | tr '\n' ' ')
  # The first clock read, then (before the second) an LDG, then an STG.
  if grep -qE '^([A-Z]+ )*CLOCK (LDG |STG )*LDG (LDG |STG )*STG (LDG |STG )*CLOCK' <<<"$order"; then
    echo "ok   probe $1: clock, load, store of the value, clock"
  else
    echo "FAIL probe $1: clock reads, loads and stores in the order: $order"
    status=1
  fi
}
check_probe "stream_kernelILi0ELb0ELi16E"
check_probe "stream_batched_kernelILi4E"

for w in 1 2 4 8 16 32 64 128 256; do
  check_stream "$w" 0
  check_stream "$w" 1
done

if [ "$print" = "--print" ]; then
  echo
  echo "if_else_kernel, from the first BSSY to the last BSYNC:"
  function_sass if_else_kernel | awk '/ BSSY /{on = 1} on {print} / BSYNC /{last = NR}' |
    awk '{lines[NR] = $0; if ($0 ~ / BSYNC /) last = NR} END {for (i = 1; i <= last; ++i) print lines[i]}' |
    sed -E 's#^ +/\*[0-9a-f]{4}\*/ +#  #; s# */\* 0x[0-9a-f]+ \*/##; s# +;$# ;#' | grep -v '^[[:space:]]*$'
fi
exit $status
