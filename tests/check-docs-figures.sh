#!/usr/bin/env bash
# The docs' generated figures equal what their committed runs give (scripts/docs_figures.py
# --check), and the check can fail: a copy of README.md with one figure changed is refused.
# Usage: check-docs-figures.sh PYTHON REPO_ROOT
set -euo pipefail
python=${1:?usage: check-docs-figures.sh PYTHON REPO_ROOT}
root=${2:?usage: check-docs-figures.sh PYTHON REPO_ROOT}
cd "$root"
docs=(README.md docs/streaming.md)
"$python" scripts/docs_figures.py --check "${docs[@]}"
work=$(mktemp -d "${TMPDIR:-/tmp}/warpcost-docs-XXXXXX")
trap 'rm -rf "$work"' EXIT
sed 's/^\(| streaming *| *\)[0-9]*/\1999999/' README.md >"$work/README.md"
cmp -s README.md "$work/README.md" && { echo "check-docs-figures: the plant changed nothing"; exit 1; }
if "$python" scripts/docs_figures.py --check "$work/README.md" 2>/dev/null; then
  echo "check-docs-figures: a changed figure passed the check"; exit 1
fi
echo "check-docs-figures: ${#docs[@]} files hold their runs' figures; a planted change is refused"
