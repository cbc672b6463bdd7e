#!/bin/sh
# Runs the libFuzzer harnesses one after the other, each for a bounded time
# (make fuzz).
#
#   run.sh BUILD_DIR SECONDS_PER_TARGET [TARGET...]
#
# TARGET is one of the parser harnesses mlir, notation, hlo, hlo_text, pspec,
# dtensor, tf, rules_json, paddle_oneflow or the pipeline harnesses propagate, export,
# lower_verify, explain, interp, module_convert, plan (default: all). The
# targets are built (incrementally) first. Seeds: regressions/ and
# seeds/<target>/ (committed), plus per target:
#   mlir       samples/*.mlir, the malformed corpus and every
#              -split-input-file chunk of Shardy's lit tests
#              (/work/shared/conformance or $SHARD_CONFORMANCE), each at most
#              MAX_SEED bytes: the 1 MB deep-nesting files and the largest
#              conformance chunks made libFuzzer crawl (16 exec/s; 104/s
#              with 8 KB seeds, 521/s with 2 KB)
#   notation   samples/notation.txt, its lines, tests/malformed/*.notation
#   hlo        the shardings of tests/convert/cases/inputs/dump.{hlo,mlir}
#   hlo_text   seeds/hlo_text (small HLO text dumps) and the .hlo inputs of
#              tests/*/cases
#   propagate, export, lower_verify, explain, interp, module_convert
#              samples/*.mlir, the .mlir inputs of tests/*/cases, the
#              conformance chunks (as for mlir) and the modules of
#              /work/shared/realworld (or $SHARD_REALWORLD) of at most
#              MAX_PIPELINE_SEED bytes (default 8192), PIPELINE_SEEDS of
#              them (default 300, every k-th), copied at run time only;
#              the structure-aware mutator (fuzz_mutator.h) edits them
#   plan       the generator's byte seeds (seeds/plan)
# The grown corpus stays in BUILD_DIR/fuzz-corpus/<target> between runs;
# crashes go to BUILD_DIR/fuzz-artifacts/<target>/. Prints executions, speed
# and findings per target and fails when any target found something: once
# it is fixed, copy the artifact into regressions/<target>/ so it replays in
# ctest. Extra libFuzzer flags: FUZZ_FLAGS. A unit may take FUZZ_TIMEOUT
# seconds (default 60): at nice 19 on a loaded 2-core machine a 0.3 s unit
# once took more than 10 s, a timeout that never replayed.
set -u
build=$1
seconds=$2
shift 2
targets=${*:-mlir notation hlo hlo_text pspec dtensor tf rules_json paddle_oneflow propagate export lower_verify explain interp module_convert plan}
root=$(cd "$(dirname "$0")/../.." && pwd)
here=$root/tests/fuzz
conformance=${SHARD_CONFORMANCE:-/work/shared/conformance}
realworld=${SHARD_REALWORLD:-/work/shared/realworld}
max_seed=${MAX_SEED:-2048}
max_pipeline_seed=${MAX_PIPELINE_SEED:-8192}
status=0

bins=
for target in $targets; do
  bins="$bins fuzz_$target"
done
nice -n "${FUZZ_NICE:-10}" cmake --build "$build" -j"${JOBS:-2}" --target $bins || exit 2

for target in $targets; do
  bin=$build/tests/fuzz/fuzz_$target
  corpus=$build/fuzz-corpus/$target
  seeds=$build/fuzz-seeds/$target
  artifacts=$build/fuzz-artifacts/$target
  mkdir -p "$corpus" "$seeds" "$artifacts"
  rm -f "$seeds"/*
  cp "$here"/regressions/$target/* "$here"/seeds/$target/* "$seeds"/ 2>/dev/null
  max_len=4096
  dict=
  case $target in
  mlir)
    max_len=$max_seed
    dict=-dict=$here/mlir.dict
    cp "$root"/samples/*.mlir "$seeds"/
    find "$root"/tests/malformed -name '*.mlir' -size -"$max_seed"c -exec cp {} "$seeds"/ \;
    if [ -d "$conformance" ]; then
      # every -split-input-file chunk of Shardy's lit tests is a seed
      find "$conformance" -name '*.mlir' | sort | while read -r f; do
        awk -v out="$seeds/$(basename "$f" .mlir)" 'BEGIN{n=0} /^\/\/ -----/{n++; next} {print > (out "_" n ".mlir")}' "$f"
      done
    fi
    find "$seeds" -type f -size +"$max_seed"c -delete
    ;;
  propagate | export | lower_verify | explain | interp | module_convert)
    max_len=$max_pipeline_seed
    dict=-dict=$here/mlir.dict
    cp "$root"/samples/*.mlir "$seeds"/
    find "$root"/tests -path "$root"/tests/malformed -prune -o -path "$root"/tests/fuzz -prune -o \
      -name '*.mlir' -path '*/cases/*' -print | while read -r f; do
      cp "$f" "$seeds/case_$(basename "$(dirname "$f")")_$(basename "$f")"
    done
    chunks=$build/fuzz-chunks
    rm -rf "$chunks"
    mkdir -p "$chunks"
    for dir in "$conformance" "$realworld"; do
      [ -d "$dir" ] || continue
      find "$dir" -name '*.mlir' | sort | while read -r f; do
        awk -v out="$chunks/$(basename "$f" .mlir)" 'BEGIN{n=0} /^\/\/ -----/{n++; next} {print > (out "_" n ".mlir")}' "$f"
      done
    done
    find "$chunks" -type f -size +"$max_pipeline_seed"c -delete
    # An ASan unit of these harnesses takes 20-50 ms on an idle core: the
    # ~2,900 chunks alone would take a 90 s run's whole budget to load, so
    # every k-th one is taken, PIPELINE_SEEDS (default 300) in all.
    total=$(ls "$chunks" | wc -l)
    step=$(( (total + ${PIPELINE_SEEDS:-300} - 1) / ${PIPELINE_SEEDS:-300} ))
    [ "$step" -ge 1 ] || step=1
    ls "$chunks" | sort | awk -v k="$step" 'NR % k == 0' | while read -r f; do cp "$chunks/$f" "$seeds/"; done
    rm -rf "$chunks"
    ;;
  notation)
    grep -v '^//' "$root"/samples/notation.txt > "$seeds"/notation.txt
    cp "$root"/tests/malformed/*.notation "$seeds"/
    i=0
    grep '^sharding' "$root"/samples/notation.txt | while read -r line; do
      i=$((i + 1))
      { grep '^@' "$root"/samples/notation.txt; echo "$line"; } > "$seeds/line_$i.txt"
    done
    ;;
  hlo_text)
    find "$root"/tests -path "$root"/tests/fuzz -prune -o -name '*.hlo' -path '*/cases/*' -print | while read -r f; do
      cp "$f" "$seeds/case_$(basename "$f")"
    done
    ;;
  hlo)
    # MESH \n SHAPE \n SHARDING, see fuzz_convert.h
    i=0
    { sed -n 's/.*sharding=\({.*}\)$/\1/p' "$root"/tests/convert/cases/inputs/dump.hlo
      grep -o 'mhlo.sharding = "[^"]*"' "$root"/tests/convert/cases/inputs/dump.mlir | sed 's/.*= "\(.*\)"$/\1/'
    } 2>/dev/null | sort -u | while read -r s; do
      i=$((i + 1))
      printf '\n\n%s' "$s" > "$seeds/dump_$i"
    done
    ;;
  esac
  log=$build/fuzz-$target.log
  nice -n "${FUZZ_NICE:-10}" "$bin" $dict -max_total_time="$seconds" -max_len="$max_len" -timeout="${FUZZ_TIMEOUT:-60}" \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$artifacts/" ${FUZZ_FLAGS:-} \
    "$corpus" "$seeds" > "$log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  # -fork=N prints no final stats: its last "#N: cov: ..." line counts them
  [ -n "$execs" ] || execs=$(sed -n 's/^#\([0-9]*\): cov:.*/\1/p' "$log" | tail -n 1)
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
  found=$(ls "$artifacts" | wc -l)
  echo "fuzz_$target: ${execs:-?} executions in ${seconds}s (${speed:-?}/s), ${cov:-cov: ?}, corpus $(ls "$corpus" | wc -l) files, $found findings, exit $rc"
  if [ "$rc" -ne 0 ] || [ "$found" -ne 0 ]; then
    status=1
    grep -m 5 -E 'ERROR|invariant|SUMMARY' "$log"
  fi
done
exit $status
