#!/usr/bin/env bash
# Proof the warp-primitives chain kernels time their primitive: every instantiation of
# primitive_chain_kernel<P, C> (P the primitive id, C the chains a warp; read from the mangled name)
# must hold its primitive's SASS instruction (SHFL.IDX/UP/DOWN/BFLY, VOTE.ANY/ALL, MATCH.ANY/ALL,
# REDUX.SUM/MIN/MAX, WARPSYNC, IADD3 for the baseline) at least 64 x C x (instructions an op) times:
# the 64 ops a loop trip unrolls, in each chain. The table (name, mnemonic, count an op) comes from
# `warpcost-primitives list`, so it is the one in core/warp_primitives/model.cpp.
# The negative control is the same source built with -DWARPCOST_PRIMITIVES_PLAIN_MOVE (every
# primitive a plain move, target warpcost_primitives_plain_move): it must fail (--must-fail).
#
#   scripts/check-sass-primitives.sh --tool TOOL [--must-fail] [--skip-missing] (OBJECT | --sass-text FILE)
# Exit 0: every kernel passes (with --must-fail: one fails); 1: not; 2: usage; 77: cuobjdump is not
# installed, or (--skip-missing) OBJECT was not built (ctest: skipped, with the reason).
set -uo pipefail
usage() { echo "usage: scripts/check-sass-primitives.sh --tool TOOL [--must-fail] [--skip-missing] (OBJECT | --sass-text FILE)" >&2; exit 2; }
tool="" must_fail=0 skip_missing=0 text_file="" object=""
while [ $# -gt 0 ]; do
  case "$1" in
    --tool) [ $# -ge 2 ] || usage; tool=$2; shift 2 ;;
    --must-fail) must_fail=1; shift ;;
    --skip-missing) skip_missing=1; shift ;;
    --sass-text) [ $# -ge 2 ] || usage; text_file=$2; shift 2 ;;
    -*) echo "check-sass-primitives: unknown option '$1'" >&2; usage ;;
    *) [ -z "$object" ] || usage; object=$1; shift ;;
  esac
done
[ -n "$tool" ] || { echo "check-sass-primitives: --tool (warpcost-primitives) is required" >&2; usage; }
table=$("$tool" list) || { echo "check-sass-primitives: '$tool list' failed" >&2; exit 1; }
if [ -n "$text_file" ]; then
  [ -z "$object" ] || usage
  [ -f "$text_file" ] || { echo "check-sass-primitives: '$text_file' does not exist" >&2; exit 1; }
  sass=$(cat "$text_file")
else
  [ -n "$object" ] || usage
  command -v cuobjdump >/dev/null 2>&1 || { echo "cuobjdump not found: SASS check skipped" >&2; exit 77; }
  if [ ! -f "$object" ]; then
    if [ "$skip_missing" = 1 ]; then
      echo "'$object' is not built (cmake --build ... --target warpcost_primitives_plain_move; the GPU round builds it): skipped" >&2
      exit 77
    fi
    echo "check-sass-primitives: '$object' does not exist" >&2; exit 1
  fi
  sass=$(cuobjdump -sass "$object") || { echo "check-sass-primitives: cuobjdump failed on $object" >&2; exit 1; }
fi

# One line per kernel function: "P C COUNT_OF_EACH_MNEMONIC..." is computed in awk from the table.
result=$(awk -v table="$table" '
  BEGIN {
    n = split(table, lines, "\n")
    for (i = 1; i <= n; i++) {
      split(lines[i], f, " ")
      if (f[1] == "") continue
      name[f[1]] = f[2]; mnem[f[1]] = f[3]; per[f[1]] = substr(f[4], 2) + 0
    }
  }
  function finish() {
    if (id == "") return
    need = 64 * chains * per[id]
    if (name[id] == "activemask") {
      # Not timed (bench/warp_primitives/plan.cpp): ptxas hoists __activemask() out of the
      # chain, which this check found on the H200 (2 VOTE.ANY for 64 calls).
      printf "SKIP %s chains=%d %s: %d (not timed: ptxas hoists it out of the chain) %s\n", name[id], chains, mnem[id], count, fn
      id = ""
      return
    }
    printf "%s %s chains=%d %s: %d (need >= %d) %s\n", (count >= need ? "PASS" : "FAIL"), name[id], chains, mnem[id], count, need, fn
    id = ""
  }
  /Function : / {
    finish()
    if (match($0, /primitive_chain_kernel/) && match($0, /PrimitiveE[0-9]+ELi[0-9]+E/)) {
      s = substr($0, RSTART, RLENGTH); gsub(/PrimitiveE|E$/, "", s); split(s, a, "ELi")
      id = a[1]; chains = a[2]; count = 0; fn = $NF
    }
    next
  }
  id != "" {
    # An instruction line: /*0180*/  @!P0 SHFL.BFLY PT, R3, R2, 0x1, 0x1f ;  -- the opcode is the
    # first word after the address and any predicate guard.
    line = $0; sub(/^[ \t]*\/\*[0-9a-f]+\*\/[ \t]*/, "", line); sub(/^@!?U?P[0-9T]+[ \t]+/, "", line)
    split(line, w, /[ \t]/)
    # A mnemonic may name alternatives ("IADD3|IMAD.IADD": ptxas emits some integer adds on the
    # FMA pipe as IMAD.IADD, a + b as a * 1 + b).
    k = split(mnem[id], alt, "|")
    for (j = 1; j <= k; j++) if (index(w[1], alt[j]) == 1) { count++; break }
  }
  END { finish() }' <<<"$sass")
echo "$result"
kernels=$(grep -c . <<<"$result")
failed=$(grep -c '^FAIL' <<<"$result")
if [ "$kernels" -eq 0 ] || [ -z "$result" ]; then
  # Also under --must-fail: a negative control that finds no kernel proves nothing.
  echo "check-sass-primitives: no primitive_chain_kernel in the SASS" >&2
  exit 1
fi
if [ "$must_fail" = 1 ]; then
  # Every primitive's kernel must fail a build whose primitives are plain moves; only the alu
  # baseline (no primitive to remove) and the kernels reported SKIP may pass.
  primitives=$(grep -v '^SKIP' <<<"$result" | grep -vc '^[A-Z]* alu_add ')
  if [ "$failed" -gt 0 ] && [ "$failed" -eq "$primitives" ]; then
    echo "negative control: $failed of $kernels kernels fail, as they must (every primitive's; the alu baseline and skipped kernels apart)"
    exit 0
  fi
  echo "negative control: $failed of the $primitives primitive kernels fail a build whose primitives are plain moves (all must): the check cannot tell them apart" >&2
  exit 1
fi
[ "$failed" -eq 0 ] && { echo "all $kernels primitive kernels hold their instruction"; exit 0; }
echo "$failed of $kernels primitive kernels lack their instruction" >&2
exit 1
