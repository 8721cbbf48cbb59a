"""Planted copies: disguised versions of Python/Triton code, to test that overlap detection sees through them.

Each function returns new source that still parses (and, for rename/reformat/reorder, still computes the
same thing): what a KB entry copied from a cohort operator might look like after someone tidied it up.
Deterministic for a given seed. Used by tests/provenance and bench/bench_overlap.py; users can run them
on their own cohort to check a threshold before trusting a freeze.
"""
from __future__ import annotations

import io
import random
import tokenize

from provenance.fingerprint import KEEP_NAMES
from provenance.parsing import parse

_BUILTINS = frozenset("""
range len float int str bool print super self cls min max abs sum isinstance tuple list dict set zip enumerate
True False None object type getattr setattr hasattr sorted reversed map filter any all round pow divmod
__init__ __name__ __main__ property staticmethod classmethod Exception ValueError
torch nn triton tl F math np forward
""".split())


def _identifier_spans(code: str):
    """(start_byte, end_byte, name) of every identifier a consistent renaming may touch."""
    root = parse(code, "python").root_node
    kwarg_names, spans, stack = set(), [], [root]
    while stack:
        n = stack.pop()
        p = n.parent
        if n.type in ("import_statement", "import_from_statement", "comment", "string"):
            continue
        if n.type == "identifier":
            name = n.text.decode()
            if p is not None and p.type == "keyword_argument" and p.child_by_field_name("name") == n:
                fn = p.parent.parent.child_by_field_name("function") if p.parent.parent is not None else None
                if fn is not None and fn.type != "attribute":  # kernel[grid](..., BLOCK=BLOCK): keep in step
                    kwarg_names.add(name)
            elif p is not None and p.type == "attribute" and p.child_by_field_name("attribute") == n:
                pass
            else:
                spans.append((n.start_byte, n.end_byte, name))
        stack.extend(n.children)
    return [(s, e, name) for s, e, name in spans
            if name not in kwarg_names and name not in _BUILTINS and name not in KEEP_NAMES
            and not (name.startswith("__") and name.endswith("__"))]


def rename(code: str, seed: int = 0) -> str:
    """Consistently rename every user identifier (variables, parameters, functions, classes)."""
    rng = random.Random(seed)
    spans = _identifier_spans(code)
    words = ["val", "tmp", "buf", "acc", "idx", "ptr", "blk", "aux", "res", "src", "dst", "chunk", "lane", "part"]
    mapping: dict[str, str] = {}
    for _, _, name in sorted(spans):
        if name not in mapping:
            mapping[name] = f"{rng.choice(words)}_{len(mapping)}{rng.choice('abcdefghjk')}"
    data = code.encode()
    for s, e, name in sorted(spans, reverse=True):
        data = data[:s] + mapping[name].encode() + data[e:]
    return data.decode()


def reformat(code: str, seed: int = 0) -> str:
    """Re-lay out the code: comments dropped and new ones added, arguments one per line, other spacing."""
    rng = random.Random(seed)
    toks = [t for t in tokenize.generate_tokens(io.StringIO(code).readline)
            if t.type not in (tokenize.COMMENT, tokenize.NL)]
    out: list[str] = []
    indent, depth, line_start = 0, 0, True
    comments = ["# compute the block", "# note: fp32 accumulation", "# see the reference", "# tile loop"]
    for t in toks:
        if t.type == tokenize.INDENT:
            indent += 1
            continue
        if t.type == tokenize.DEDENT:
            indent -= 1
            continue
        if t.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
            out.append("\n")
            if rng.random() < 0.15:
                out.append("    " * indent + rng.choice(comments) + "\n")
            line_start = True
            continue
        s = t.string
        if t.type == tokenize.STRING and s.startswith('"') and not s.startswith('"""') and "'" not in s:
            s = "'" + s[1:-1] + "'"
        if line_start:
            out.append("    " * indent)
            line_start = False
        elif out and not out[-1].endswith(("(", "[", "{", "\n", " ", ".")) and s not in (")", "]", "}", ",", ":", ".", "(", "["):
            out.append(" ")
        elif s in ("(", "[") and out and out[-1].endswith(tuple("=,+-*/<>")):
            out.append(" ")
        out.append(s)
        if s in ("(", "[", "{"):
            depth += 1
        elif s in (")", "]", "}"):
            depth -= 1
        elif s == "," and depth == 1:
            out.append("\n" + "    " * (indent + 2))
    return "".join(out)


def _defs_uses(node) -> tuple[set[str], set[str]]:
    defs, uses, stack = set(), set(), [node]
    expr = node.named_children[0] if node.named_child_count else node
    if expr.type in ("assignment", "augmented_assignment"):
        left = expr.child_by_field_name("left")
        defs = {i.text.decode() for i in _ids(left)}
        stack = [expr.child_by_field_name("right")]
        if expr.type == "augmented_assignment":
            uses |= defs
    while stack:
        n = stack.pop()
        if n is None:
            continue
        if n.type == "identifier":
            uses.add(n.text.decode())
        stack.extend(n.children)
    return defs, uses


def _ids(node):
    return [node] if node.type == "identifier" else [i for c in node.named_children for i in _ids(c)]


def reorder(code: str, seed: int = 0) -> str:
    """Swap adjacent statements that do not depend on each other, and move the last top-level definition first."""
    rng = random.Random(seed)
    root = parse(code, "python").root_node
    swaps = []
    stack = [root]
    while stack:
        n = stack.pop()
        stack.extend(n.named_children)
        if n.type != "block":
            continue
        stmts = [c for c in n.named_children if c.type == "expression_statement"]
        i = 0
        while i + 1 < len(stmts):
            a, b = stmts[i], stmts[i + 1]
            (da, ua), (db, ub) = _defs_uses(a), _defs_uses(b)
            adjacent = a.next_named_sibling == b and "store" not in a.text.decode() + b.text.decode()
            if adjacent and da and db and not (da & ub or db & ua or da & db) and rng.random() < 0.8:
                swaps.append((a, b))
                i += 2
            else:
                i += 1
    data = code.encode()
    for a, b in sorted(swaps, key=lambda p: p[0].start_byte, reverse=True):
        ta, tb = data[a.start_byte:a.end_byte], data[b.start_byte:b.end_byte]
        data = data[:a.start_byte] + tb + data[a.end_byte:b.start_byte] + ta + data[b.end_byte:]
    text = data.decode()
    tops = [c for c in parse(text, "python").root_node.named_children
            if c.type in ("decorated_definition", "function_definition", "class_definition")]
    if len(tops) >= 2:
        last = tops[-1]
        block = text.encode()[last.start_byte:last.end_byte].decode()
        first = tops[0].start_byte
        raw = text.encode()
        text = (raw[:first] + block.encode() + b"\n\n\n" + raw[first:last.start_byte] + raw[last.end_byte:]).decode()
    return text


def kernels(code: str) -> list[str]:
    """The source of every @triton.jit function in code."""
    root = parse(code, "python").root_node
    return [c.text.decode() for c in root.named_children
            if c.type == "decorated_definition" and "jit" in c.named_children[0].text.decode()]


def paste(code: str, host: str, seed: int = 0) -> str:
    """The kernels of code, renamed, pasted into the middle of another file."""
    body = "\n\n\n".join(kernels(code)) or code
    body = rename(body, seed)
    lines = host.splitlines()
    tops = [c.start_point[0] for c in parse(host, "python").root_node.named_children
            if c.type in ("decorated_definition", "function_definition", "class_definition")]
    cut = tops[len(tops) // 2] if tops else len(lines)
    return "\n".join(lines[:cut] + ["", body, "", ""] + lines[cut:]) + "\n"


_EDITS = [
    ("other=0.0", "other=1.0"), ("other=-float(\"inf\")", "other=0.0"), (" < n_cols", " <= n_cols"),
    ("axis=0", "axis=-1"), ("tl.float32", "tl.float16"), (" + b", " - b"), ("tl.exp(", "tl.exp2("),
]


def small_edit(code: str, seed: int = 0) -> str:
    """A near-miss sized change: one textual edit (a mask, a constant, an op) and one added statement."""
    rng = random.Random(seed)
    candidates = [e for e in _EDITS if e[0] in code]
    if candidates:
        old, new = rng.choice(candidates)
        code = code.replace(old, new, 1)
    lines = code.splitlines()
    loads, stack = [], [parse(code, "python").root_node]
    while stack:  # `name = tl.load(...)` statements, however many lines they span
        n = stack.pop()
        stack.extend(n.named_children)
        if n.type == "assignment" and n.child_by_field_name("left").type == "identifier" \
                and n.child_by_field_name("right").text.startswith(b"tl.load("):
            loads.append((n.start_point[0], n.end_point[0], n.child_by_field_name("left").text.decode()))
    if loads:
        first, last, name = rng.choice(sorted(loads))
        ind = lines[first][: len(lines[first]) - len(lines[first].lstrip())]
        lines.insert(last + 1, f"{ind}{name} = {name}.to(tl.float32)")
    return "\n".join(lines) + "\n"


def disguise(code: str, seed: int = 0) -> str:
    """Rename, then reorder, then reformat: the full disguise."""
    return reformat(reorder(rename(code, seed), seed), seed)


TRANSFORMS = {"rename": rename, "reformat": reformat, "reorder": reorder, "small_edit": small_edit,
              "disguise": disguise}
