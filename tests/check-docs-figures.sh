#!/usr/bin/env bash
# The docs' generated figures equal what their committed runs give (scripts/docs_figures.py
# --check), and the check can fail: a copy of README.md with one figure changed is refused.
# Usage: check-docs-figures.sh PYTHON REPO_ROOT
set -euo pipefail
python=${1:?usage: check-docs-figures.sh PYTHON REPO_ROOT}
root=${2:?usage: check-docs-figures.sh PYTHON REPO_ROOT}
cd "$root"
# Every file that holds a generated block (README.md and docs/*.md), so a new one is checked too.
mapfile -t docs < <(grep -l '<!-- generated:' README.md docs/*.md)
[ "${#docs[@]}" -ge 7 ] || { echo "check-docs-figures: only ${#docs[@]} files hold generated figures: ${docs[*]}"; exit 1; }
"$python" scripts/docs_figures.py --check "${docs[@]}"
work=$(mktemp -d "${TMPDIR:-/tmp}/warpcost-docs-XXXXXX")
trap 'rm -rf "$work"' EXIT
sed 's/^\(| streaming *| *\)[0-9]*/\1999999/' README.md >"$work/README.md"
cmp -s README.md "$work/README.md" && { echo "check-docs-figures: the plant changed nothing"; exit 1; }
if "$python" scripts/docs_figures.py --check "$work/README.md" 2>/dev/null; then
  echo "check-docs-figures: a changed figure passed the check"; exit 1
fi
sed 's/4\.[0-9]* TB\/s (missed)/9.999 TB\/s (missed)/' docs/streaming.md >"$work/streaming.md"
cmp -s docs/streaming.md "$work/streaming.md" && { echo "check-docs-figures: the streaming plant changed nothing"; exit 1; }
if "$python" scripts/docs_figures.py --check "$work/streaming.md" 2>/dev/null; then
  echo "check-docs-figures: a changed best read passed the check"; exit 1
fi
# A row of a generated table (coalescing's 2D blocks) and an inline count (models.md's knees).
sed 's/^| x=30;y=30 | [0-9.]* TB\/s/| x=30;y=30 | 9.999 TB\/s/' docs/coalescing.md >"$work/coalescing.md"
cmp -s docs/coalescing.md "$work/coalescing.md" && { echo "check-docs-figures: the rows plant changed nothing"; exit 1; }
if "$python" scripts/docs_figures.py --check "$work/coalescing.md" 2>/dev/null; then
  echo "check-docs-figures: a changed table row passed the check"; exit 1
fi
sed 's/-->11 rows: [0-9]* holds, [0-9]* fails<!--/-->11 rows: 11 holds<!--/' docs/models.md >"$work/models.md"
cmp -s docs/models.md "$work/models.md" && { echo "check-docs-figures: the inline plant changed nothing"; exit 1; }
if "$python" scripts/docs_figures.py --check "$work/models.md" 2>/dev/null; then
  echo "check-docs-figures: a changed inline count passed the check"; exit 1
fi
# A file whose blocks are gone, or a mistyped marker, is refused too (it cannot pass by having none).
grep -v 'generated' README.md >"$work/no-blocks.md"
if "$python" scripts/docs_figures.py --check "$work/no-blocks.md" 2>/dev/null; then
  echo "check-docs-figures: a file with no blocks passed the check"; exit 1
fi
sed '0,/<!-- generated: headline/s//<!-- generated:  headline/' README.md >"$work/typo.md"
if "$python" scripts/docs_figures.py --check "$work/typo.md" 2>/dev/null; then
  echo "check-docs-figures: a mistyped marker passed the check"; exit 1
fi
echo "check-docs-figures: ${#docs[@]} files hold their runs' figures; changed figures, table rows and inline counts, a missing block and a mistyped marker are refused"
