#!/usr/bin/env bash
# The plan and the analysis take every architecture number from the device (or its profile in
# data/device-profiles.csv) and the run's context, never from one GPU's constant: this check fails on
# the H200's numbers written into code under analysis/, bench/ and kernels/ (comments aside):
# "H200" in a string, its 132 SMs, its 60 MiB or the H100's 50 MiB L2 (as bytes or MiB), and 64
# as a warps/SM cap. Prints each offending line; exit 1 when there is one. Tests and the profiles
# may name the H200: they hold real H200 data.
set -euo pipefail
root=${1:?usage: check-no-device-constants.sh ROOT}
cd "$root"
status=0
pattern='"[^"]*H200[^"]*"|\b132\b|62914560|52428800|\b(50|60) ?(MiB|MB)\b|\b(50|60)[[:space:]]*\*[[:space:]]*(kMiB|1024)|\b(50|60)(u|ull|ULL)?[[:space:]]*<<[[:space:]]*20|warps[a-z_]*[[:space:]]*(<=|<|==|=)[[:space:]]*64\b|kFullResidency'
# One perl pass over every file: comments stripped (// in C++ and CUDA, # in Python), then the pattern.
files=$(git ls-files analysis bench kernels | grep -E '\.(cpp|hpp|cu|cuh|py)$' || true)
if [ -n "$files" ]; then
  if hits=$(PATTERN="$pattern" perl -ne '
      my $line = $_;
      if ($ARGV =~ /\.py$/) { $line =~ s/#.*$//; } else { $line =~ s{//.*$}{}; }
      print "$ARGV:$.: $_" if $line =~ /$ENV{PATTERN}/;
      close ARGV if eof;' $files) && [ -n "$hits" ]; then
    echo "$hits"
    status=1
  fi
fi
if [ $status -eq 0 ]; then
  echo "check-no-device-constants: no H200 number in analysis/, bench/ or kernels/ code"
else
  echo "check-no-device-constants: take these from the device's facts or the run's context" >&2
fi
exit $status
