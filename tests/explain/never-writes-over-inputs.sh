#!/bin/sh
# explain never writes over what it reads or runs: the application (by path and by name on PATH),
# a file the application is given, the injection library, a suite run under --results; nor over
# a device (/dev/null would become a plain file). Each is refused (exit 2) before anything runs
# (the stand-in application would print "ran"), and every file is unchanged after.
# Usage: never-writes-over-inputs.sh WARPCOST_EXPLAIN
explain=$1
d=$(mktemp -d /tmp/warpcost-over-inputs-XXXXXX) || exit 1
trap 'rm -rf "$d"' EXIT
mkdir -p "$d/results/gpu/run"
printf '#!/bin/sh\necho ran\n' > "$d/app" && chmod +x "$d/app"
cp "$d/app" "$d/app.orig"
# The real injection library (a stand-in that is no shared library is refused for that alone).
lib="$(dirname "$explain")/libwarpcost_inject.so"
[ -f "$lib" ] || { echo "no $lib: this build has no injection library"; exit 1; }
cp "$lib" "$d/lib.so"
echo '{}' > "$d/results/gpu/run/bench.json"
echo keep > "$d/arg"
refused() {
  PATH="$d:$PATH" "$explain" "$@" > "$d/out" 2>&1
  rc=$?
  if grep -q '^ran' "$d/out" || [ "$rc" -ne 2 ]; then
    echo "not refused (exit $rc): $*"; cat "$d/out"; exit 1
  fi
  head -n 1 "$d/out"
}
refused --json "$d/app" -- "$d/app"
refused --csv "$d/app" -- app
refused --records "$d/app" -- "$d/app"
refused --json "$d/arg" -- "$d/app" "$d/arg"
refused --inject "$d/lib.so" --json "$d/lib.so" -- "$d/app"
refused --results "$d/results" --json "$d/results/gpu/run/bench.json" -- "$d/app"
refused --json /dev/null -- "$d/app"
cmp -s "$d/app" "$d/app.orig" && cmp -s "$lib" "$d/lib.so" && [ "$(cat "$d/arg")" = keep ] &&
  [ "$(cat "$d/results/gpu/run/bench.json")" = '{}' ] && [ -c /dev/null ] || { echo "a file changed"; exit 1; }
echo all-refused
