#!/usr/bin/env python3
"""Writes a large, realistic Shardy module: N transformer layers as JAX
exports them (StableHLO pretty syntax, sdy.mesh, #sdy.sharding on the
arguments, sdy.sharding_constraint inside each layer).

  gen.py --ops N [--mesh 2|3] > model.mlir

Each layer is 24 ops (3 projections, reshapes and transposes into heads,
scores, exp, weighted sum, output projection, residual, two-matmul MLP with a
tanh gate, two sharding constraints); layers cycle through 8 sets of weight
arguments so the function signature stays a realistic size. The module has
about N ops in its function body.

  gen.py --ops N --wide > wide.mlir

A *wide* module instead: many small private functions (about 30 ops each)
over many meshes (one per 10 functions, 4 axes each, in their own order),
each function a stablehlo.while whose body runs an sdy.manual_computation
over one axis (func > while > manual_computation),
with long sharding lists on rank-4 tensors; main calls every function once
and returns every result. 10x the ops is 10x the functions and meshes.
"""
import argparse
import sys

B, S, D, H, F = 8, 512, 1024, 16, 4096
HD = D // H
OPS_PER_LAYER = 24
WEIGHT_SETS = 8


def t(*dims):
    return "tensor<%sxf32>" % "x".join(str(d) for d in dims)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ops", type=int, required=True)
    ap.add_argument("--mesh", type=int, choices=(2, 3), default=2)
    ap.add_argument("--wide", action="store_true", help="many functions and meshes, nested regions")
    args = ap.parse_args()
    if args.wide:
        wide(args.ops)
        return
    layers = max(1, args.ops // OPS_PER_LAYER)
    if args.mesh == 2:
        mesh, batch, model, devices = '["data"=2, "model"=4]', '{"data"}', '{"model"}', 8
    else:
        mesh, batch, model, devices = '["data"=2, "fsdp"=2, "model"=4]', '{"data", "fsdp"}', '{"model"}', 16
    out = sys.stdout
    w = out.write
    w("module @jit_transformer attributes {mhlo.num_partitions = %d : i32, mhlo.num_replicas = 1 : i32} {\n" % devices)
    w("  sdy.mesh @mesh = <%s>\n" % mesh)
    act = t(B, S, D)
    params = ["%%arg0: %s {sdy.sharding = #sdy.sharding<@mesh, [%s, {}, {}]>}" % (act, batch)]
    n = 1
    for i in range(WEIGHT_SETS):
        for name, shape, spec in (("wq", (D, D), "[{}, %s]" % model), ("wk", (D, D), "[{}, %s]" % model),
                                  ("wv", (D, D), "[{}, %s]" % model), ("wo", (D, D), "[%s, {}]" % model),
                                  ("w1", (D, F), "[{}, %s]" % model), ("w2", (F, D), "[%s, {}]" % model)):
            params.append("%%arg%d: %s {sdy.sharding = #sdy.sharding<@mesh, %s>}" % (n, t(*shape), spec))
            n += 1
    w("  func.func public @main(%s) -> (%s {jax.result_info = \"result\", sdy.sharding = #sdy.sharding<@mesh, [%s, {}, {}]>}) {\n"
      % (", ".join(params), act, batch))
    x = "%arg0"
    v = 0
    heads, heads_t = t(B, S, H, HD), t(B, H, S, HD)
    scores = t(B, H, S, S)
    for layer in range(layers):
        base = 1 + 6 * (layer % WEIGHT_SETS)
        wq, wk, wv, wo, w1, w2 = ("%%arg%d" % (base + k) for k in range(6))

        def op(text):
            nonlocal v
            w("    %%%d = %s\n" % (v, text))
            v += 1
            return "%%%d" % (v - 1)

        proj = "contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (%s, %s) -> %s"
        q = op("stablehlo.dot_general %s, %s, %s" % (x, wq, proj % (act, t(D, D), act)))
        k = op("stablehlo.dot_general %s, %s, %s" % (x, wk, proj % (act, t(D, D), act)))
        vv = op("stablehlo.dot_general %s, %s, %s" % (x, wv, proj % (act, t(D, D), act)))
        q = op("sdy.sharding_constraint %s <@mesh, [%s, {}, %s]> : %s" % (q, batch, model, act))
        qr = op("stablehlo.reshape %s : (%s) -> %s" % (q, act, heads))
        kr = op("stablehlo.reshape %s : (%s) -> %s" % (k, act, heads))
        vr = op("stablehlo.reshape %s : (%s) -> %s" % (vv, act, heads))
        qt = op("stablehlo.transpose %s, dims = [0, 2, 1, 3] : (%s) -> %s" % (qr, heads, heads_t))
        kt = op("stablehlo.transpose %s, dims = [0, 2, 1, 3] : (%s) -> %s" % (kr, heads, heads_t))
        vt = op("stablehlo.transpose %s, dims = [0, 2, 1, 3] : (%s) -> %s" % (vr, heads, heads_t))
        s = op("stablehlo.dot_general %s, %s, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3], "
               "precision = [DEFAULT, DEFAULT] : (%s, %s) -> %s" % (qt, kt, heads_t, heads_t, scores))
        e = op("stablehlo.exponential %s : %s" % (s, scores))
        o = op("stablehlo.dot_general %s, %s, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2], "
               "precision = [DEFAULT, DEFAULT] : (%s, %s) -> %s" % (e, vt, scores, heads_t, heads_t))
        ot = op("stablehlo.transpose %s, dims = [0, 2, 1, 3] : (%s) -> %s" % (o, heads_t, heads))
        orr = op("stablehlo.reshape %s : (%s) -> %s" % (ot, heads, act))
        p = op("stablehlo.dot_general %s, %s, %s" % (orr, wo, proj % (act, t(D, D), act)))
        r = op("stablehlo.add %s, %s : %s" % (x, p, act))
        r = op("sdy.sharding_constraint %s <@mesh, [%s, {}, {}]> : %s" % (r, batch, act))
        h = op("stablehlo.dot_general %s, %s, %s" % (r, w1, proj % (act, t(D, F), t(B, S, F))))
        g = op("stablehlo.tanh %s : %s" % (h, t(B, S, F)))
        m = op("stablehlo.multiply %s, %s : %s" % (h, g, t(B, S, F)))
        m = op("sdy.sharding_constraint %s <@mesh, [%s, {}, %s]> : %s" % (m, batch, model, t(B, S, F)))
        d = op("stablehlo.dot_general %s, %s, %s" % (m, w2, proj % (t(B, S, F), t(F, D), act)))
        x = op("stablehlo.add %s, %s : %s" % (r, d, act))
    w("    return %s : %s\n  }\n}\n" % (x, act))


WIDE_OPS_PER_FUNC = 30
WIDE_FUNCS_PER_MESH = 10
# the axis orders of the meshes, cycled (4 axes of size 2: 16 devices each)
MESH_AXES = (("x", "y", "z", "w"), ("x", "z", "y", "w"), ("x", "w", "z", "y"),
             ("x", "y", "w", "z"), ("x", "z", "w", "y"), ("x", "w", "y", "z"))


def wide(ops):
    funcs = max(1, ops // WIDE_OPS_PER_FUNC)
    meshes = max(1, funcs // WIDE_FUNCS_PER_MESH)
    w = sys.stdout.write
    w("module @jit_wide attributes {mhlo.num_partitions = 16 : i32, mhlo.num_replicas = 1 : i32} {\n")
    for k in range(meshes):
        w("  sdy.mesh @mesh%d = <[%s]>\n" % (k, ", ".join('"%s"=2' % a for a in MESH_AXES[k % len(MESH_AXES)])))
    full = (8, 16, 32, 64)
    local = (4, 16, 32, 64)
    ft, lt = t(*full), t(*local)
    it = "tensor<i32>"
    # long sharding lists: every dimension names axes, some several
    arg_spec = '[{"x", "y"}, {"z"}, {}, {"w"}]'
    manual_in = '[{"x"}, {}, {}, {}]'
    inner_specs = ('[{}, {"y", "z"}, {}, {"w"}]', '[{}, {}, {"z"}, {"y", "w"}]', '[{}, {"y"}, {"z", "w"}, {}]')
    for f in range(funcs):
        m = "@mesh%d" % (f // WIDE_FUNCS_PER_MESH % meshes)
        w("  func.func private @f%d(%%arg0: %s {sdy.sharding = #sdy.sharding<%s, %s>}) -> (%s {sdy.sharding = "
          "#sdy.sharding<%s, %s>}) {\n" % (f, ft, m, arg_spec, ft, m, inner_specs[f % 3].replace('{}', '{"x"}', 1)))
        w("    %%c0 = stablehlo.constant dense<0> : %s\n" % it)
        w("    %%w:2 = stablehlo.while(%%it = %%c0, %%acc = %%arg0) : %s, %s\n" % (it, ft))
        w("      cond {\n")
        w("        %%lim = stablehlo.constant dense<%d> : %s\n" % (2 + f % 5, it))
        w("        %%p = stablehlo.compare LT, %%it, %%lim : (%s, %s) -> tensor<i1>\n" % (it, it))
        w("        stablehlo.return %p : tensor<i1>\n")
        w("      } do {\n")
        w("        %%one = stablehlo.constant dense<1> : %s\n" % it)
        w("        %%n = stablehlo.add %%it, %%one : %s\n" % it)
        w("        %%mc = sdy.manual_computation(%%acc) in_shardings=[<%s, %s>] out_shardings=[<%s, %s>] "
          "manual_axes={\"x\"} (%%a: %s) {\n" % (m, manual_in, m, manual_in, lt))
        x = "%a"
        v = 0
        body = WIDE_OPS_PER_FUNC - 10
        for i in range(body):
            kind = i % 5
            if kind == 0:
                text = "stablehlo.tanh %s : %s" % (x, lt)
            elif kind == 1:
                text = "stablehlo.multiply %s, %%a : %s" % (x, lt)
            elif kind == 2:
                text = "sdy.sharding_constraint %s <%s, %s> : %s" % (x, m, inner_specs[(f + i) % 3], lt)
            elif kind == 3:
                text = "stablehlo.exponential %s : %s" % (x, lt)
            else:
                text = "stablehlo.add %s, %%a : %s" % (x, lt)
            w("          %%v%d = %s\n" % (v, text))
            x = "%%v%d" % v
            v += 1
        w("          sdy.return %s : %s\n" % (x, lt))
        w("        } : (%s) -> %s\n" % (ft, ft))
        w("        stablehlo.return %%n, %%mc : %s, %s\n" % (it, ft))
        w("      }\n")
        w("    return %%w#1 : %s\n  }\n" % ft)
    w("  func.func public @main(%%arg0: %s) -> (%s) {\n" % (ft, ", ".join([ft] * funcs)))
    for f in range(funcs):
        w("    %%r%d = func.call @f%d(%%arg0) : (%s) -> %s\n" % (f, f, ft, ft))
    w("    return %s : %s\n  }\n}\n" % (", ".join("%%r%d" % f for f in range(funcs)), ", ".join([ft] * funcs)))


if __name__ == "__main__":
    main()
