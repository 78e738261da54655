#!/usr/bin/env bash
# Negative control of check-ledger.sh: in a throw-away git repository a new lock and a pure move
# need no entry; a commit that changes a lock fails the check until the ledger names its short hash
# or its message names a ledger entry ("Ledger: ID"); a "Ledger: ID" with no such entry still fails.
set -euo pipefail
check=${1:?usage: check-ledger-selftest.sh CHECK_SCRIPT}
work=$(mktemp -d "${TMPDIR:-/tmp}/warpcost-ledger-XXXXXX")
trap 'rm -rf "$work"' EXIT
g() { git -C "$work" -c user.name=t -c user.email=t@t -c commit.gpgsign=false "$@"; }
g init -q
mkdir -p "$work/docs" "$work/results/gpu/run1" "$work/results/archive/gpu"
printf '# ledger\n\n### RULE-A (today): a rule\n' >"$work/docs/verdict-changes.md"
printf 'fam\tm\tmodel\tholds\t3\n' >"$work/results/gpu/run1/verdict-lock.txt"
g add -A && g commit -qm "a new run and its lock"
g mv results/gpu/run1/verdict-lock.txt results/archive/gpu/run1.verdict-lock.txt && g commit -qm "archived"
"$check" "$work" >/dev/null || { echo "selftest: a new lock and a pure move failed"; "$check" "$work"; exit 1; }
printf 'fam\tm\tmodel\tholds\t2\nfam\tm\tmodel\tfails\t1\n' >"$work/results/archive/gpu/run1.verdict-lock.txt"
g commit -qam "a tolerance moved one row"
if "$check" "$work" >/dev/null; then echo "selftest: an unnamed lock change passed"; exit 1; fi
g commit -q --amend -m "a tolerance moved one row (Ledger: RULE-B)"
if "$check" "$work" >/dev/null; then echo "selftest: a Ledger: id with no entry passed"; exit 1; fi
g commit -q --amend -m "a tolerance moved one row (Ledger: RULE-A)"
"$check" "$work" >/dev/null || { echo "selftest: a change named by its entry failed"; "$check" "$work"; exit 1; }
g commit -q --amend -m "a tolerance moved one row"
printf '\nCommit %s moved one row.\n' "$(g rev-parse --short=7 HEAD)" >>"$work/docs/verdict-changes.md"
"$check" "$work" >/dev/null || { echo "selftest: a change named by its hash failed"; "$check" "$work"; exit 1; }
# A move with a rewrite that git does not pair (delete + add, other content) is a change too.
g mv results/archive/gpu/run1.verdict-lock.txt results/gpu/run1-moved.txt
printf 'fam\tm\tmodel\tholds\t0\nfam\tm\tmodel\tfails\t3\nother\tx\tinfo\tinfo\t9\nmore\ty\tinfo\tinfo\t1\n' >"$work/results/gpu/run1-moved.txt"
mkdir -p "$work/results/gpu/run1"
g mv results/gpu/run1-moved.txt results/gpu/run1/verdict-lock.txt
g add -A && g commit -qm "back from the archive, rewritten"
if "$check" "$work" >/dev/null; then echo "selftest: a rewrite through delete + add passed"; exit 1; fi
echo "check-ledger selftest: 6 cases as expected"
