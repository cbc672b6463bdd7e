#!/bin/sh
# make bench: wall time and peak RSS, side by side on the same generated
# modules, of shard check, shard propagate / shard lower (when they exist)
# and mlir-opt-16 reading and printing the module's generic form.
#
#   run.sh SHARD_BINARY [OPS...]      (default OPS: 10000 100000 1000000)
#
# Files are generated once into $BENCH_DIR (default: next to the binary,
# bench-data/). Each measurement is the best of $BENCH_REPEAT runs (default 3).
set -eu
shard=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shift
sizes=${*:-10000 100000 1000000}
here=$(cd "$(dirname "$0")" && pwd)
dir=${BENCH_DIR:-$(dirname "$shard")/bench-data}
repeat=${BENCH_REPEAT:-3}
mlir_opt=${MLIR_OPT:-mlir-opt-16}
mkdir -p "$dir"

# best wall time (s) and its peak RSS (MiB) over $repeat runs of "$@"
measure() {
  best=
  for _ in $(seq "$repeat"); do
    /usr/bin/time -f '%e %M' -o "$dir/time.out" "$@" > /dev/null 2> "$dir/err.out" || {
      echo "FAILED: $*" >&2; tail -n 3 "$dir/err.out" >&2; return 1; }
    read -r secs kib < "$dir/time.out"
    if [ -z "$best" ] || [ "$(echo "$secs < $best" | bc)" = 1 ]; then best=$secs; rss=$((kib / 1024)); fi
  done
  echo "$best $rss"
}

has_cmd() { "$shard" help 2>&1 | grep -q "^ *$1 "; }

printf '%-9s %-6s %10s | %-17s | %-17s | %-17s | %-17s | %s\n' ops mesh MiB "shard check" "shard propagate" "shard lower" "mlir-opt-16 (gen)" "check vs mlir-opt"
printf '%-9s %-6s %10s | %-17s | %-17s | %-17s | %-17s |\n' "" "" "" "s / MiB RSS" "s / MiB RSS" "s / MiB RSS" "s / MiB RSS"
prev_ops= prev_t=
for ops in $sizes; do
  for mesh in 2 3; do
    f=$dir/model_${ops}_${mesh}axes.mlir
    g=$dir/model_${ops}_${mesh}axes.generic.mlir
    [ -s "$f" ] || python3 "$here/gen.py" --ops "$ops" --mesh "$mesh" > "$f"
    [ -s "$g" ] || "$shard" opt --mlir-print-op-generic "$f" -o "$g"
    size=$(($(wc -c < "$f") / 1048576))
    set -- $(measure "$shard" check "$f"); ct=$1 cm=$2
    pt=- pm=- lt=- lm=-
    if has_cmd propagate; then set -- $(measure "$shard" propagate "$f"); pt=$1 pm=$2; fi
    if has_cmd lower; then set -- $(measure "$shard" lower "$f"); lt=$1 lm=$2; fi
    set -- $(measure "$mlir_opt" --allow-unregistered-dialect --mlir-print-op-generic "$g"); mt=$1 mm=$2
    ratio=$(echo "scale=1; $mt / ($ct + 0.001)" | bc)
    mem=$(echo "scale=2; $cm / $mm" | bc)
    printf '%-9s %-6s %10s | %7s / %-7s | %7s / %-7s | %7s / %-7s | %7s / %-7s | %sx faster, %s of the memory\n' \
      "$ops" "${mesh}ax" "$size" "$ct" "$cm" "$pt" "$pm" "$lt" "$lm" "$mt" "$mm" "$ratio" "$mem"
    if [ "$mesh" = 2 ]; then
      if [ -n "$prev_ops" ]; then
        echo "          scaling: $((ops / prev_ops))x the ops took $(echo "scale=2; $ct / ($prev_t + 0.001)" | bc)x the time (shard check)"
      fi
      prev_ops=$ops prev_t=$ct
    fi
  done
done
