#!/bin/sh
# make bench: wall time, CPU time, peak RSS and MB/s of shard check, opt,
# propagate, lower and lower --plan beside mlir-opt-16 reading and printing
# the same module's generic form, on generated modules of each size, narrow
# (bench/gen.py: one long function) and wide (gen.py --wide: many functions
# and meshes, func > while > manual_computation); then the growth factor of
# each command per 10x the ops, and issue 17's targets, each met or not.
# Times and peak RSS come from bench/measure.py (the kernel's accounting of
# the finished process, to the millisecond).
#
#   run.sh SHARD_BINARY [OPS...]      (default OPS: 10000 100000)
#
# BENCH_SHAPES (default "narrow wide"), BENCH_REPEAT (best of N runs, default
# 3), BENCH_DIR (default: bench-data/ next to the binary, files generated
# once), MLIR_OPT (default mlir-opt-16; skipped when absent).
# 1000000 ops is about 130 MB of text and minutes per command: ask for it.
set -eu
shard=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shift
sizes=${*:-10000 100000}
shapes=${BENCH_SHAPES:-narrow wide}
here=$(cd "$(dirname "$0")" && pwd)
dir=${BENCH_DIR:-$(dirname "$shard")/bench-data}
repeat=${BENCH_REPEAT:-3}
mlir_opt=${MLIR_OPT:-mlir-opt-16}
command -v "$mlir_opt" > /dev/null 2>&1 || mlir_opt=
mkdir -p "$dir"
tmp_out=$dir/out.tmp

# Best wall time over $repeat runs of "$@": prints "wall cpu rss_mib" (the
# CPU time and peak RSS of that best run; bench/measure.py reads them from the
# kernel to the millisecond). Output goes to a file, as shard's -o or
# mlir-opt's stdout would.
measure() {
  best=
  for _ in $(seq "$repeat"); do
    python3 "$here/measure.py" "$tmp_out" "$dir/err.out" -- "$@" > "$dir/time.out" || {
      echo "FAILED: $*" >&2; tail -n 3 "$dir/err.out" >&2; echo "- - -"; return 0; }
    read -r secs cpu_s rss_m < "$dir/time.out"
    if [ -z "$best" ] || [ "$(echo "$secs < $best" | bc)" = 1 ]; then
      best=$secs cpu=$cpu_s rss=$rss_m
    fi
  done
  echo "$best $cpu $rss"
}

gen() { # shape ops file
  if [ "$1" = wide ]; then python3 "$here/gen.py" --ops "$2" --wide > "$3"
  else python3 "$here/gen.py" --ops "$2" > "$3"; fi
}

ratio() { # a b: a/b with two decimals, - when either is missing or b is 0
  case "$1$2" in *-*) echo -; return;; esac
  if [ "$(echo "$2 == 0" | bc)" = 1 ]; then echo -; else echo "scale=2; $1 / $2" | bc | sed 's/^\./0./'; fi
}
x_of() { [ "$1" = - ] && echo - || echo "${1}x"; } # a ratio as "N.NNx"

results=$dir/results.txt
: > "$results"
printf '%-7s %-9s %6s | %-14s %8s %8s %8s %8s | %s\n' shape ops MB command wall_s cpu_s rss_MiB "MB/s" "vs mlir-opt (wall, rss)"
for shape in $shapes; do
  for ops in $sizes; do
    f=$dir/${shape}_$ops.mlir
    g=$dir/${shape}_$ops.generic.mlir
    [ -s "$f" ] || gen "$shape" "$ops" "$f"
    [ -s "$g" ] || "$shard" opt --mlir-print-op-generic "$f" -o "$g"
    mb=$(echo "scale=2; $(wc -c < "$f") / 1000000" | bc | sed "s/^\./0./")
    if [ -n "$mlir_opt" ]; then
      set -- $(measure "$mlir_opt" --allow-unregistered-dialect --mlir-print-op-generic "$g")
    else
      set -- - - -
    fi
    mw=$1 mc=$2 mr=$3
    printf '%-7s %-9s %6s | %-14s %8s %8s %8s %8s |\n' "$shape" "$ops" "$mb" mlir-opt-16 "$mw" "$mc" "$mr" \
      "$(ratio "$mb" "$mw")"
    for cmd in check opt propagate lower plan; do
      case $cmd in
        opt) set -- "$shard" opt "$f" -o "$tmp_out.mlir";;
        plan) set -- "$shard" lower --plan "$f" -o "$tmp_out.mlir";;
        *) set -- "$shard" "$cmd" "$f";;
      esac
      set -- $(measure "$@")
      name=$cmd; [ "$cmd" = plan ] && name="lower --plan"
      printf '%-7s %-9s %6s | %-14s %8s %8s %8s %8s | %s, %s\n' "$shape" "$ops" "$mb" "$name" "$1" "$2" "$3" \
        "$(ratio "$mb" "$1")" "$(x_of "$(ratio "$1" "$mw")")" "$(x_of "$(ratio "$3" "$mr")")"
      echo "$shape $ops $cmd $1 $2 $3 $mw $mr" >> "$results"
    done
  done
done

# growth per 10x the ops, from CPU time (wall time on a shared machine waits)
echo
echo "growth of CPU time per 10x the ops (linear: 10x)"
for shape in $shapes; do
  for cmd in check opt propagate lower plan; do
    line=$(awk -v s="$shape" -v c="$cmd" '$1 == s && $3 == c { printf "%s:%s ", $2, $5 }' "$results")
    prev_ops= prev_t= out=
    for pair in $line; do
      o=${pair%%:*} t=${pair#*:}
      if [ -n "$prev_ops" ] && [ "$o" -eq $((prev_ops * 10)) ]; then
        out="$out ${prev_ops}->${o}: $(x_of "$(ratio "$t" "$prev_t")")"
      fi
      prev_ops=$o prev_t=$t
    done
    [ -n "$out" ] && printf '  %-7s %-14s%s\n' "$shape" "$cmd" "$out"
  done
done

# issue 17's targets, from the rows above (wall and RSS beside mlir-opt-16 at
# 100k ops and more; lower --plan beside lower; growth per 10x in CPU time)
echo
echo "targets (100k ops and more; growth from the CPU times above)"
awk '
function verdict(ok) { return ok ? "met" : "NOT MET" }
$7 != "-" && $2 >= 100000 {
  w = $4 / $7; r = $6 / $8
  if ($3 == "check") {
    printf "  %-7s %-9s check        wall %.2fx (<= 0.1x) %s, rss %.2fx (<= 0.25x) %s\n", $1, $2, w, verdict(w <= 0.1), r, verdict(r <= 0.25)
  } else if ($3 == "propagate") {
    printf "  %-7s %-9s propagate    wall %.2fx (<= 0.5x) %s\n", $1, $2, w, verdict(w <= 0.5)
  } else if ($3 == "lower") {
    printf "  %-7s %-9s lower        wall %.2fx (<= 1x) %s\n", $1, $2, w, verdict(w <= 1)
    lower[$1 " " $2] = $4
  } else if ($3 == "plan" && (($1 " " $2) in lower)) {
    p = $4 / lower[$1 " " $2]
    printf "  %-7s %-9s lower --plan %.2fx lower (<= 2x) %s\n", $1, $2, p, verdict(p <= 2)
  }
}
' "$results"
awk '
function verdict(ok) { return ok ? "met" : "NOT MET" }
{ cpu[$1 " " $3 " " $2] = $5 }
END {
  for (k in cpu) {
    split(k, a, " ")
    if (a[2] == "opt") continue
    big = a[1] " " a[2] " " (a[3] * 10)
    if ((big in cpu) && cpu[k] > 0) {
      g = cpu[big] / cpu[k]
      printf "  %-7s %-9s %-12s growth %.1fx per 10x (<= 11x) %s\n", a[1], a[3] "->" a[3] * 10, a[2], g, verdict(g <= 11)
    }
  }
}' "$results" | sort -k1,1 -k2,2n -k3,3
rm -f "$tmp_out" "$tmp_out.mlir"
