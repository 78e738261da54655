#!/usr/bin/env bash
# Every commit in the history that changes a committed verdict lock (a modified lock file, or one
# moved with changes) is named in the ledger, docs/verdict-changes.md: by its short hash (7
# characters) in the ledger's text, or by a ledger entry id its message names as "Ledger: ID",
# where ID is the title of a "## " or "### " entry. New locks (a new run) and pure moves (an
# archived run) change no verdict and need no entry; a lock deleted and added again with other
# content in one commit is a change. A commit that names an entry is trusted to be the one the
# entry describes (the entry gives its moved counts). Usage: check-ledger.sh REPO_ROOT
# Exit 0 every change named; 1 a change unnamed (each listed); 77 no history to read (skipped).
set -uo pipefail
root=${1:?usage: check-ledger.sh REPO_ROOT}
ledger="$root/docs/verdict-changes.md"
if ! git -C "$root" rev-parse --git-dir >/dev/null 2>&1; then
  echo "skipped: $root is not a git checkout"; exit 77
fi
if [ "$(git -C "$root" rev-parse --is-shallow-repository)" = true ]; then
  echo "skipped: a shallow clone lacks the history the ledger is held to"; exit 77
fi
[ -f "$ledger" ] || { echo "no ledger at $ledger"; exit 1; }
ids=$(sed -n -E 's/^#{2,3} ([A-Za-z0-9][A-Za-z0-9_-]*)( .*)?$/\1/p' "$ledger")
missing=0
checked=0
# -M: a move keeps its name R100; anything else that touches a lock's content reads M or R<100.
while read -r commit; do
  [ -n "$commit" ] || continue
  status=$(git -C "$root" show --format= --name-status -M "$commit" -- 'results/*verdict-lock.txt')
  changed=$(awk '$1 == "M" || ($1 ~ /^R/ && $1 != "R100")' <<<"$status" | wc -l)
  # A lock deleted and added again in one commit (a move git did not pair, or a rewrite): the run's
  # lock before and after, by run id (results/<gpu>/<run>/verdict-lock.txt or
  # results/archive/<gpu>/<run>.verdict-lock.txt), compared by content.
  while read -r deleted; do
    run=$(sed -E 's#.*/([^/]+)/verdict-lock\.txt$#\1#; s#.*/([^/]+)\.verdict-lock\.txt$#\1#' <<<"$deleted")
    added=$(awk -v run="$run" '$1 == "A" && (index($2, "/" run "/verdict-lock.txt") || index($2, "/" run ".verdict-lock.txt")) { print $2 }' <<<"$status")
    [ -n "$added" ] || continue
    if ! cmp -s <(git -C "$root" show "$commit^:$deleted") <(git -C "$root" show "$commit:$added"); then
      changed=$((changed + 1))
    fi
  done < <(awk '$1 == "D" { print $2 }' <<<"$status")
  [ "$changed" -gt 0 ] || continue
  checked=$((checked + 1))
  short=${commit:0:7}
  grep -q "$short" "$ledger" && continue
  named=$(git -C "$root" log -1 --format=%B "$commit" | sed -n -E 's/.*Ledger: ([A-Za-z0-9_-]+).*/\1/p')
  ok=0
  for id in $named; do
    if grep -qx "$id" <<<"$ids"; then ok=1; fi
  done
  [ "$ok" = 1 ] && continue
  echo "commit $short changes $changed verdict lock(s) but the ledger names neither it nor an entry (\"Ledger: ID\" in its message): $(git -C "$root" log -1 --format=%s "$commit" | cut -c1-100)"
  missing=$((missing + 1))
done < <(git -C "$root" log --format=%H -- 'results/*verdict-lock.txt')
if [ "$missing" -gt 0 ]; then
  echo "$missing of $checked lock-changing commit(s) are not in docs/verdict-changes.md"
  exit 1
fi
echo "every one of $checked lock-changing commit(s) is named in docs/verdict-changes.md"
