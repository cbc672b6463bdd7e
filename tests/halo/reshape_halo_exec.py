#!/usr/bin/env python3
"""Executes sharded reshapes (and the slices before them) after the halo
exchange of -sdy-resolve-permutation-factors and compares every device's
result with the unsharded program, through `shard interpret`.

Each case is a 1-D tensor (optionally with a trailing dim sharded by a
second axis "b") sliced and then split into A x B with the dim's axis split
in two sub-axes, which leaves a non-divisible dim for the halo exchange to
solve. The pipeline is the one Shardy's executable tests run
(run_sdy_interpreter_test.sh). With enable-halo-exchange=true the case must
also really take the halo path (an offset table in the output), so a
silent fallback to replication fails the test.

usage: reshape_halo_exec.py SHARD_BINARY
"""
import subprocess
import sys
import tempfile
import os

# name, devices along "a", input size, sliced size, A, B, out sub-axes, trailing dim (0: none), slice start
CASES = [
    ("s6_2x3_n4", 4, 8, 6, 2, 3, '"a":(1)2', '"a":(2)2', 0, 0),
    ("s10_2x5_n4", 4, 12, 10, 2, 5, '"a":(1)2', '"a":(2)2', 0, 0),
    ("s14_2x7_n6", 6, 18, 14, 2, 7, '"a":(1)2', '"a":(2)3', 0, 0),
    ("s15_3x5_n6", 6, 18, 15, 3, 5, '"a":(1)3', '"a":(3)2', 0, 0),
    ("s20_4x5_n8", 8, 24, 20, 4, 5, '"a":(1)4', '"a":(4)2', 0, 0),
    ("s21_3x7_n6", 6, 24, 21, 3, 7, '"a":(1)3', '"a":(3)2', 0, 0),
    # a second axis shards a dim the exchange does not touch
    ("s6_2x3_n4_t4", 4, 8, 6, 2, 3, '"a":(1)2', '"a":(2)2', 4, 0),
    ("st1_s6_2x3_n4_t4", 4, 8, 6, 2, 3, '"a":(1)2', '"a":(2)2', 4, 1),
    ("st2_s6_2x3_n4", 4, 8, 6, 2, 3, '"a":(1)2', '"a":(2)2', 0, 2),
    ("st1_s10_2x5_n4_t2", 4, 12, 10, 2, 5, '"a":(1)2', '"a":(2)2', 2, 1),
]
# 12 -> 4x3 on 8 devices would need data from two shards away: Shardy
# replicates instead, so no offset table is expected there.
REPLICATED = [("s12_4x3_n8", 8, 16, 12, 4, 3, '"a":(1)4', '"a":(4)2', 0, 0)]


def programs(name, n, m, size, a, b, out0, out1, trail, start):
    mesh = f'["a"={n}, "b"=2]' if trail else f'["a"={n}]'
    tr = f"x{trail}" if trail else ""
    trs = ', {"b"}' if trail else ""
    rep = ", {}" if trail else ""
    sl = f"[{start}:{size + start}" + (f", 0:{trail}]" if trail else "]")
    ins = f'[{{"a"}}{trs}]'
    gin, mid, res = f"tensor<{m}{tr}xi32>", f"tensor<{size}{tr}xi32>", f"tensor<{a}x{b}{tr}xi32>"
    parallel = f"""sdy.mesh @mesh = <{mesh}>
func.func @parallel(%arg0: {gin} {{sdy.sharding = #sdy.sharding<@mesh, {ins}>}}) -> ({res} {{sdy.sharding = #sdy.sharding<@mesh, [{{}}, {{}}{rep}]>}}) {{
  %0 = stablehlo.slice %arg0 {sl} {{sdy.sharding = #sdy.sharding_per_value<[#sdy.sharding<@mesh, {ins}>]>}} : ({gin}) -> {mid}
  %1 = stablehlo.reshape %0 {{sdy.sharding = #sdy.sharding_per_value<[#sdy.sharding<@mesh, [{{{out0}}}, {{{out1}}}{trs}]>]>}} : ({mid}) -> {res}
  %2 = sdy.reshard %1 <@mesh, [{{}}, {{}}{rep}]> : {res}
  return %2 : {res}
}}
"""
    sequential = f"""func.func @sequential(%arg0: {gin}) -> {res} {{
  %0 = stablehlo.slice %arg0 {sl} : ({gin}) -> {mid}
  %1 = stablehlo.reshape %0 : ({mid}) -> {res}
  return %1 : {res}
}}
"""
    devices = n * (2 if trail else 1)
    lm, lt = m // n, trail // 2
    local = f"tensor<{lm}" + (f"x{lt}" if trail else "") + "xi32>"
    body = [f"  %i = stablehlo.iota dim = 0 : {gin}", f"  %one = stablehlo.constant dense<1> : {gin}",
            f"  %x = stablehlo.add %i, %one : {gin}"]
    src = "%x"
    if trail:  # distinct values along the trailing dim too
        body += [f"  %j = stablehlo.iota dim = 1 : {gin}", f"  %k = stablehlo.constant dense<100> : {gin}",
                 f"  %xk = stablehlo.multiply %x, %k : {gin}", f"  %y = stablehlo.add %xk, %j : {gin}"]
        src = "%y"
    body.append(f"  %seq = func.call @sequential({src}) : ({gin}) -> {res}")
    shards = []
    for d in range(devices):
        ai, bi = (d // 2, d % 2) if trail else (d, 0)
        lo = [ai * lm] + ([bi * lt] if trail else [])
        hi = [(ai + 1) * lm] + ([(bi + 1) * lt] if trail else [])
        ones = ", ".join("1" for _ in lo)
        body.append(f'  %d{d} = "stablehlo.slice"({src}) {{start_indices = array<i64: {", ".join(map(str, lo))}>, '
                    f'limit_indices = array<i64: {", ".join(map(str, hi))}>, strides = array<i64: {ones}>}} : ({gin}) -> {local}')
        shards.append(f"%d{d}")
    body.append(f'  %r:{devices} = "interpreter.run_parallel"({", ".join(shards)}) '
                f'{{programs = [[{", ".join(["@parallel"] * devices)}]]}} : ({", ".join([local] * devices)}) -> ({", ".join([res] * devices)})')
    for d in range(devices):
        body.append(f'  "check.expect_eq"(%r#{d}, %seq) : ({res}, {res}) -> ()')
    main = "func.func @main() {\n" + "\n".join(body) + "\n  return\n}\n"
    return parallel, sequential, main


def run_case(shard, tmp, case, halo, expect_table):
    parallel, sequential, main = programs(*case)
    p1 = os.path.join(tmp, f"{case[0]}_{halo}.mlir")
    with open(p1, "w") as f:
        f.write(parallel)
    resolved = subprocess.run(
        [shard, "opt", p1, "--sdy-insert-explicit-reshards=enable-full-version=true",
         f"--sdy-resolve-permutation-factors=enable-halo-exchange={halo}"], capture_output=True, text=True)
    tables = sum(1 for l in resolved.stdout.splitlines() if "stablehlo.reshape" in l and "(tensor<1xi64>)" in l)
    if resolved.returncode != 0 or (tables > 0) != expect_table:
        return f"resolve-permutation-factors: exit {resolved.returncode}, {tables} offset tables\n{resolved.stderr}"
    local = subprocess.run(
        [shard, "opt", p1, "--sdy-insert-explicit-reshards=enable-full-version=true",
         f"--sdy-resolve-permutation-factors=enable-halo-exchange={halo}", "--sdy-reshard-to-collectives",
         "--sdy-pad-for-divisibility", "--sdy-resolve-single-device-sharding",
         "--sdy-convert-global-to-local", "--sdy-drop-sharding-and-mesh"], capture_output=True, text=True)
    if local.returncode != 0:
        return f"pipeline failed:\n{local.stderr}"
    lines = local.stdout.splitlines()
    # the module's body: drop `module {` and everything from its closing brace
    end = next(i for i, l in enumerate(lines) if l.startswith("}"))
    combined = os.path.join(tmp, f"{case[0]}_{halo}_combined.mlir")
    with open(combined, "w") as f:
        f.write("\n".join(lines[1:end]) + "\n" + sequential + main)
    run = subprocess.run([shard, "interpret", "-q", combined], capture_output=True, text=True)
    if run.returncode != 0:
        return f"interpret failed (exit {run.returncode}):\n{run.stdout[-2000:]}{run.stderr[-2000:]}"
    return None


def main():
    shard = sys.argv[1]
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for case, halo_table in [(c, True) for c in CASES] + [(c, False) for c in REPLICATED]:
            for halo in ("true", "false"):
                err = run_case(shard, tmp, case, halo, halo == "true" and halo_table)
                print(f"{'FAIL' if err else 'ok  '} {case[0]} enable-halo-exchange={halo}")
                if err:
                    print(err)
                    failures += 1
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
