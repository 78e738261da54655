#!/usr/bin/env bash
# A stand-in for warpcost-bench on a machine without GPUs, for run-devices-test.sh: it answers
# --warpcost_check_device with FAKE_DEVICES devices (77 when 0, as the bench does), and a run of
# device N files a copy of a fixture run as <root>/fixture-gpu/<stamp>-0000000N/bench.json, with
# its own run id and UUID, after FAKE_SECONDS; device FAKE_FAIL fails as the bench does (a .failed
# folder, exit 1). It notes when each device started and ended, and its arguments, in FAKE_NOTES.
set -euo pipefail
fixture=$(dirname "$0")/../fixtures/runs/fixture-gpu/20260101T000000Z/bench.json
device=
root=
for a in "$@"; do
  case "$a" in
    --warpcost_check_device)
      [ "${FAKE_DEVICES:-3}" -gt 0 ] || { echo "fake-bench: no CUDA device is visible" >&2; exit 77; }
      echo "${FAKE_DEVICES:-3} CUDA device(s) visible"
      exit 0 ;;
    --warpcost_device=*) device=${a#*=} ;;
    --warpcost_results_root=*) root=${a#*=} ;;
  esac
done
{ [ -n "$device" ] && [ -n "$root" ]; } || { echo "fake-bench: expected --warpcost_device and --warpcost_results_root" >&2; exit 2; }
echo "$*" >"$FAKE_NOTES/args-$device"
date +%s.%N >"$FAKE_NOTES/start-$device"
sleep "${FAKE_SECONDS:-2}"
stamp=2026010${device}T000000Z-0000000${device}
dir=$root/fixture-gpu/$stamp
mkdir -p "$root/fixture-gpu"
echo "fake-bench: device $device measuring" >&2
if [ "$device" = "${FAKE_FAIL:-none}" ]; then
  mkdir -p "$dir.failed"
  cp "$fixture" "$dir.failed/bench.json"
  echo "fake-bench: 1 failure(s); run kept in $dir.failed" >&2
  date +%s.%N >"$FAKE_NOTES/end-$device"
  exit 1
fi
mkdir -p "$dir"
sed -e "s|fixture-gpu/20260101T000000Z|fixture-gpu/$stamp|" \
    -e "s|GPU-00000000-|GPU-0000000${device}-|" "$fixture" >"$dir/bench.json"
date +%s.%N >"$FAKE_NOTES/end-$device"
echo "$dir"
