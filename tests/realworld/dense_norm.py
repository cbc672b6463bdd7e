"""Normalize `dense<...> : type` literals to their element values.

MLIR re-spells a dense literal when it prints it (a splat as one value, hex
elements as numbers, floats as the value of their element type), so after a
trip through mlir-opt-16 `dense<[1]> : tensor<1xi32>` comes back as
`dense<1> : tensor<1xi32>` and `1.000000e-01 : bf16` as `1.000980e-01`. shard
keeps a literal's text as written. normalize() rewrites every dense literal
whose element type it understands (integers, index, f16, bf16, f32, f64,
complex of those) into the flat list of its values rounded to the element
type; any other literal is left as written. The scales of !quant.uniform
types are read as values too.
"""
import math
import re
import struct

FLOATS = {  # significand bits, smallest subnormal exponent, largest finite
    "f16": (11, -24, 65504.0),
    "bf16": (8, -133, float.fromhex("0x1.fep127")),
    "f32": (24, -149, float.fromhex("0x1.fffffep127")),
}
BITS = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}
# 8-bit floats MLIR 16 knows: exponent bits, mantissa bits, bias, NaN/inf
# encoding ("ieee": inf and NaN at the top exponent; "fn": NaN only at all
# ones; "fnuz": NaN is 0x80, no -0)
F8 = {
    "f8E5M2": (5, 2, 15, "ieee"),
    "f8E4M3FN": (4, 3, 7, "fn"),
    "f8E5M2FNUZ": (5, 2, 16, "fnuz"),
    "f8E4M3FNUZ": (4, 3, 8, "fnuz"),
    "f8E4M3B11FNUZ": (4, 3, 11, "fnuz"),
}


def _f8_decode(b, elt):
    e_bits, m_bits, bias, kind = F8[elt]
    sign = -1.0 if b >> 7 else 1.0
    e = (b >> m_bits) & ((1 << e_bits) - 1)
    f = b & ((1 << m_bits) - 1)
    top = (1 << e_bits) - 1
    if kind == "fnuz" and b == 0x80:
        return math.nan
    if kind == "ieee" and e == top:
        return math.nan if f else sign * math.inf
    if kind == "fn" and e == top and f == (1 << m_bits) - 1:
        return math.nan
    if e == 0:
        return sign * f * 2.0 ** (1 - bias - m_bits)
    return sign * (1 + f / 2.0 ** m_bits) * 2.0 ** (e - bias)


for _name, (_e, _m, _bias, _kind) in F8.items():
    _top_e = (1 << _e) - 1 - (1 if _kind == "ieee" else 0) - _bias
    _top_m = (1 << _m) - (2 if _kind == "fn" else 1)
    FLOATS[_name] = (_m + 1, 1 - _bias - _m, (1 + _top_m / 2.0 ** _m) * 2.0 ** _top_e)
    BITS[_name] = 8


def _balanced(text, i, open_ch="<", close_ch=">"):
    """index just past the bracket group opening at text[i]"""
    depth = 0
    in_str = False
    while i < len(text):
        c = text[i]
        if in_str:
            if c == "\\":
                i += 1
            elif c == '"':
                in_str = False
        elif c == '"':
            in_str = True
        elif c == open_ch:
            depth += 1
        elif c == close_ch and not (c == ">" and text[i - 1] == "-"):
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return -1


def _round(v, elt):
    if elt == "f64" or math.isnan(v) or math.isinf(v) or v == 0:
        return v
    p, emin, top = FLOATS[elt]
    e = math.frexp(v)[1]
    q = max(e - p, emin)
    r = round(v / 2.0 ** q) * 2.0 ** q
    if abs(r) > top:
        return math.copysign(math.inf, v)
    return r


def _float_bits(bits, elt):
    if elt in F8:
        return _f8_decode(bits, elt)
    if elt == "f64":
        return struct.unpack("<d", struct.pack("<Q", bits))[0]
    if elt == "f32":
        return struct.unpack("<f", struct.pack("<I", bits))[0]
    if elt == "f16":
        return struct.unpack("<e", struct.pack("<H", bits))[0]
    return struct.unpack("<f", struct.pack("<I", bits << 16))[0]  # bf16


def _scalar(tok, elt):
    tok = tok.strip()
    if elt in BITS:
        if tok.lower().startswith(("0x", "-0x")):
            v = _float_bits(int(tok, 16), elt)
            if math.isnan(v):
                return "nan:" + hex(int(tok, 16))
        else:
            v = _round(float(tok), elt)
        return repr(v)
    # integers
    if tok in ("true", "false"):
        n = 1 if tok == "true" else 0
    else:
        n = int(tok, 0)
    m = re.fullmatch(r"(s|u)?i(\d+)", elt)
    if m:
        w = int(m.group(2))
        n &= (1 << w) - 1
        if m.group(1) != "u" and w > 1 and n >> (w - 1):
            n -= 1 << w
    return str(n)


def _hex_blob(blob, elt, count):
    data = bytes.fromhex(blob)
    cplx = elt.startswith("complex<")
    base = elt[8:-1] if cplx else elt
    if base in BITS:
        size = BITS[base] // 8
    else:
        m = re.fullmatch(r"(?:s|u)?i(\d+)", base)
        size = max(1, (int(m.group(1)) + 7) // 8) if m else 8
    esize = size * (2 if cplx else 1)
    if esize == 0 or len(data) % esize:
        return None
    vals = []
    for k in range(len(data) // size):
        n = int.from_bytes(data[k * size:(k + 1) * size], "little")
        vals.append(_scalar(hex(n) if base in BITS else str(n), base))
    if cplx:
        vals = [f"({vals[2 * k]},{vals[2 * k + 1]})" for k in range(len(vals) // 2)]
    if len(vals) == 1:
        vals *= count
    return vals


def _flatten(payload, elt):
    cplx = elt.startswith("complex<")
    base = elt[8:-1] if cplx else elt
    body = payload.replace("[", " ").replace("]", " ")
    if cplx:
        pairs = re.findall(r"\(([^,()]+),([^,()]+)\)", body)
        return [f"({_scalar(a, base)},{_scalar(b, base)})" for a, b in pairs]
    return [_scalar(t, base) for t in body.split(",") if t.strip()]


def _canon(payload, ty):
    m = re.fullmatch(r"(?:tensor|vector)<((?:\d+x)*)(.+)>", ty)
    if not m:
        return None
    dims = [int(d) for d in m.group(1).split("x") if d]
    elt = m.group(2)
    base = elt[8:-1] if elt.startswith("complex<") else elt
    if not (base in BITS or base == "index" or re.fullmatch(r"(?:s|u)?i\d+", base)):
        return None
    if base == "index":
        elt = "i64" if elt == base else "complex<i64>"
    count = math.prod(dims)
    p = payload.strip()
    if p.startswith('"0x'):
        vals = _hex_blob(p[3:-1], elt, count)
    else:
        vals = _flatten(p, elt)
        if len(vals) == 1 and not p.startswith("["):
            vals *= count
    if vals is None or len(vals) != count:
        return None
    return "dense<" + ",".join(vals) + "> : " + ty


QUANT_FLOAT = re.compile(r"(?<![\w.])[-+]?\d+\.\d*(?:[eE][-+]?\d+)?|(?<![\w.])[-+]?\d+[eE][-+]?\d+")


def _quant(text):
    """!quant.uniform<...> scales are f64 values: mlir-opt-16, which knows the
    quant dialect, re-spells 0.1 as 1.000000e-01."""
    out = []
    i = 0
    for m in re.finditer(r"!quant\.uniform<", text):
        if m.start() < i:
            continue
        end = _balanced(text, m.end() - 1)
        if end < 0:
            break
        out.append(text[i:m.start()])
        out.append(QUANT_FLOAT.sub(lambda f: repr(float(f.group(0))), text[m.start():end]))
        i = end
    out.append(text[i:])
    return "".join(out)


def normalize(text):
    text = _quant(text)
    out = []
    i = 0
    for m in re.finditer(r"\bdense<", text):
        if m.start() < i:
            continue
        lt = m.end() - 1
        end = _balanced(text, lt)
        if end < 0:
            break
        tm = re.match(r"\s*:\s*((?:tensor|vector)<)", text[end:])
        if not tm:
            continue
        ty_start = end + tm.start(1)
        ty_end = _balanced(text, end + tm.end(1) - 1)
        if ty_end < 0:
            continue
        try:
            canon = _canon(text[lt + 1:end - 1], text[ty_start:ty_end])
        except (ValueError, OverflowError):
            canon = None
        if canon is None:
            continue
        out.append(text[i:m.start()])
        out.append(canon)
        i = ty_end
    out.append(text[i:])
    return "".join(out)
