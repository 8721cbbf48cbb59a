"""Code fingerprints for overlap detection: normalised streams, k-gram hashes, winnowing.

Two representations of a snippet, both fingerprinted the same way:
- ``tokens``: the tree-sitter syntax tree in pre-order as node types, with identifiers and literals
  abstracted (API names such as ``load``/``expf`` kept, since renaming cannot touch them), comments and
  docstrings dropped and punctuation ignored, so renaming and reformatting change nothing;
- ``ops``: the language-neutral stream of kernel operations (provenance.opstream), the same for a
  Triton kernel and its port to C loops or AscendC vector calls.
AscendC is its own language (provenance.parsing.code_language tells it by content): C++ read with its
qualifiers blanked, whose tokens are only the statements that compute (provenance.ascendc.ComputeView: the
Init/Process/CopyIn/Compute/CopyOut queue template every kernel shares is left out), AscendC API names
kept; its units are kernel classes and free functions that copy or compute.

Each stream is cut into k-grams, hashed, and winnowed (Schleimer et al. 2003): in every window of w
consecutive k-gram hashes the minimum is kept, so any shared run of at least t = w + k - 1 tokens
yields at least one shared fingerprint, and runs shorter than k never do. Choice, measured on the
planted-copy corpus (bench/bench_overlap.py, tests/provenance/planted_corpus.py): a Triton statement is about
10-20 tokens here; tokens use k=10, w=4 (t=13, about one statement; density 2/(w+1) = 0.4 of the
k-grams). Against k=8..15 and w=4..10 it separated disguised copies from the same author's other
operators best: Dolos' k=23, w=17 suits whole files, not 5-line kernels, whose copies lose most of
their few long k-grams to one small edit. Op streams are short (7 ops for a softmax): k=4, every
k-gram kept (w=1).

An ops fingerprint also carries its op stream (stream, stream_lines): the overlap score aligns the op
streams of candidate pairs (provenance.align), which hashes alone cannot do.

Fingerprints are computed at ingest and stored (tokenising is the slow part); stored ones carry
``scheme``, and comparing fingerprints of different schemes is refused (StaleFingerprint); a KB's are
brought to the current scheme by a migration (provenance.fingerprint_store.refreshed), which recomputes
only what CARRIED_OVER does not vouch for.
"""
from __future__ import annotations

import hashlib
from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from provenance.errors import BadInput
from provenance.opstream import op_stream
from provenance.optables import ASCENDC_VECTOR, C_CALLS
from provenance.parsing import code_language, parse

FINGERPRINT_SCHEMA = "provenance.fingerprint/v1"
# Bump when the normalisation, the vocabulary, the hash or a default k/w changes: stored fingerprints
# of another scheme can no longer be compared and must be recomputed (add a kbstore migration that calls
# provenance.fingerprint_store.refreshed, as m004 does, and say in CARRIED_OVER what did not change).
SCHEME = "ts4"
# Earlier schemes whose fingerprints of some code equal the current scheme's: scheme -> (code, language) -> bool.
# ts2 made AscendC its own language (qualifiers blanked, only computing statements as tokens, class units, its
# own op stream). ts3 stores the op stream itself with the ops fingerprint (the overlap score aligns op streams,
# provenance.align), which no earlier blob holds. ts4: in C, C++ and AscendC `a[i] += v` is a running sum when any
# enclosing loop's variable does not index a (a port that interchanges its loops), not only the innermost loop's;
# Python's streams and every token stream are unchanged, so a ts3 blob of Python code is carried over.
CARRIED_OVER: dict = {"ts3": lambda code, language: code_language(code, language) == "python"}
PARAMS: dict[str, tuple[int, int]] = {"tokens": (10, 4), "ops": (4, 1)}

# Identifiers kept verbatim in the token stream: library calls a renaming cannot change.
KEEP_NAMES = frozenset("""
load store program_id num_programs arange zeros zeros_like full sum max min argmax argmin maximum minimum
exp exp2 log log2 log1p sqrt sqrt_rn rsqrt sigmoid tanh erf abs fma where dot cumsum cumprod softmax
trans reshape view broadcast_to expand_dims atomic_add atomic_max cdiv jit autotune constexpr
multiple_of max_contiguous static_range float32 float16 bfloat16 int32 int64 to cast sin cos pow
div_rn fdiv clamp umulhi rand randn
empty empty_like zeros_like matmul softmax contiguous numel stride shape
expf exp2f __expf logf log2f log1pf sqrtf rsqrtf tanhf fabsf fabs fmaxf fminf fmax fmin fmaf powf erff
sinf cosf max min abs
DataCopy Exp Ln Sqrt Rsqrt Abs Add Sub Mul Div Max Min Adds Muls Maxs Mins ReduceMax ReduceSum
ReduceMin WholeReduceMax WholeReduceSum Select Compare Duplicate Reciprocal Cast EnQue DeQue AllocTensor
FreeTensor
""".split())
# Kept in AscendC instead (Triton's `max`, `sum`, `stride` are a kernel's own names there): its API and C's math.
ASCENDC_KEEP_NAMES = frozenset(ASCENDC_VECTOR) | frozenset(C_CALLS) | frozenset("""
DataCopy DataCopyPad GetValue SetValue
""".split())

_SKIP = frozenset({"comment"})
_TRANSPARENT = frozenset({
    "module", "block", "expression_statement", "parenthesized_expression", "translation_unit",
    "compound_statement", "line_continuation",
})
_IDENTIFIERS = frozenset({"identifier", "field_identifier", "type_identifier", "namespace_identifier",
                          "statement_identifier"})
_LITERALS = {
    "integer": "num", "float": "num", "number_literal": "num",
    "string": "str", "concatenated_string": "str", "string_literal": "str", "raw_string_literal": "str",
    "char_literal": "str", "true": "bool", "false": "bool", "none": "none", "null": "none",
}
_OPERATORS = frozenset(
    "+ - * / // % ** @ < > <= >= == != << >> & | ^ ~ ! && || and or not in is = += -= *= /= //= %= **= "
    "&= |= ^= <<= >>= ++ --".split()
)


class Fingerprint(BaseModel):
    """Winnowed k-gram hashes of one snippet in one representation, with evidence positions."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    schema_: Literal["provenance.fingerprint/v1"] = Field(FINGERPRINT_SCHEMA, alias="schema")
    scheme: str = SCHEME
    representation: Literal["tokens", "ops"]
    language: str  # python | cpp | ascendc
    k: int
    w: int
    n_tokens: int
    hashes: list[int]  # 63-bit, non-negative: fits a signed BIGINT
    positions: list[int]  # stream index of each selected k-gram's first token
    line_start: list[int]  # 1-based source lines each selected k-gram spans
    line_end: list[int]
    # ops only: the op stream itself and the line of each op (provenance.align aligns streams of candidate pairs)
    stream: list[str] = Field(default_factory=list)
    stream_lines: list[int] = Field(default_factory=list)

    @property
    def key(self) -> tuple[str, str, int, int]:
        """What two fingerprints must share to be comparable."""
        return (self.scheme, self.representation, self.k, self.w)


def _is_docstring(node) -> bool:
    named = node.named_children
    return len(named) == 1 and named[0].type in ("string", "concatenated_string")


def token_stream(root, language: str = "") -> tuple[list[str], list[int]]:
    """Normalised pre-order stream of a syntax tree: (token kinds, 1-based line of each).

    language "ascendc": only the statements that compute (provenance.ascendc.ComputeView), each loop or
    branch around them a single token, with AscendC's API names kept; the kernel template is left out."""
    kinds: list[str] = []
    lines: list[int] = []
    if language == "ascendc":
        _ascendc_stream(root, kinds, lines)
    else:
        _stream(root, kinds, lines, KEEP_NAMES)
    return kinds, lines


def _stream(root, kinds: list[str], lines: list[int], keep: frozenset[str]) -> None:
    stack = [root]
    while stack:
        node = stack.pop()
        t = node.type
        if t in _SKIP:
            continue
        if not node.is_named:
            if t in _OPERATORS:
                kinds.append(t)
                lines.append(node.start_point[0] + 1)
            continue
        if t in _IDENTIFIERS:
            name = node.text.decode("utf-8", "replace")
            kinds.append("id:" + name if name in keep else "id")
            lines.append(node.start_point[0] + 1)
            continue
        lit = _LITERALS.get(t)
        if lit is not None:
            kinds.append(lit)
            lines.append(node.start_point[0] + 1)
            continue
        if t == "expression_statement" and _is_docstring(node):
            continue
        if t == "primitive_type":
            kinds.append("type:" + node.text.decode("utf-8", "replace"))
            lines.append(node.start_point[0] + 1)
            continue
        if t not in _TRANSPARENT:
            kinds.append(t)
            lines.append(node.start_point[0] + 1)
        if node.child_count:
            stack.extend(reversed(node.children))


def _ascendc_stream(root, kinds: list[str], lines: list[int]) -> None:
    from provenance.ascendc import BRANCHES, ComputeView

    view = ComputeView(root)
    stack = [root]
    while stack:
        node = stack.pop()
        if not view.holds(node):
            continue
        if view.computes(node):
            _stream(node, kinds, lines, ASCENDC_KEEP_NAMES)
        elif node.type in BRANCHES:
            kinds.append(node.type)
            lines.append(node.start_point[0] + 1)
            fields = BRANCHES[node.type]
            parts = [node.child_by_field_name(f) for f in fields] if fields else node.named_children
            stack.extend(reversed([p for p in parts if p is not None]))
        else:
            stack.extend(reversed(node.named_children))


@lru_cache(maxsize=4096)
def _kind_hash(kind: str) -> int:
    return int.from_bytes(hashlib.blake2b(kind.encode("utf-8"), digest_size=8).digest(), "little")


@lru_cache(maxsize=16)
def _powers(k: int) -> tuple[int, ...]:
    base, mod = 0x100000001B3, 1 << 64
    return tuple(pow(base, k - 1 - i, mod) for i in range(k))


def kgram_hashes(kinds: list[str], k: int):
    """uint64 hash of every k-gram of the stream (polynomial over 2**64, then a splitmix64 finaliser)."""
    import numpy as np

    n = len(kinds) - k + 1
    if n <= 0:
        return np.zeros(0, dtype=np.uint64)
    ids = np.fromiter((_kind_hash(x) for x in kinds), dtype=np.uint64, count=len(kinds))
    powers = np.array(_powers(k), dtype=np.uint64)
    with np.errstate(over="ignore"):
        h = np.lib.stride_tricks.sliding_window_view(ids, k) @ powers
        h ^= h >> np.uint64(30)
        h *= np.uint64(0xBF58476D1CE4E5B9)
        h ^= h >> np.uint64(27)
        h *= np.uint64(0x94D049BB133111EB)
        h ^= h >> np.uint64(31)
    return h >> np.uint64(1)


def winnow(hashes, w: int):
    """Indexes of the winnowed k-grams: the rightmost minimum of every window of w, each kept once."""
    import numpy as np

    n = len(hashes)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    if w <= 1:
        return np.arange(n, dtype=np.int64)
    if n <= w:
        return np.array([n - 1 - int(np.argmin(hashes[::-1]))], dtype=np.int64)
    win = np.lib.stride_tricks.sliding_window_view(hashes, w)
    picks = np.arange(n - w + 1) + (w - 1 - np.argmin(win[:, ::-1], axis=1))
    keep = np.ones(len(picks), dtype=bool)
    keep[1:] = picks[1:] != picks[:-1]
    return picks[keep]


def fingerprint_stream(kinds: list[str], lines: list[int], representation: str, language: str,
                       k: int | None = None, w: int | None = None) -> Fingerprint:
    """Fingerprint an already normalised stream (tokens or ops; an op stream is kept whole as well)."""
    import numpy as np

    dk, dw = PARAMS[representation]
    k, w = k or dk, w or dw
    h = kgram_hashes(kinds, k)
    sel = winnow(h, w)
    if len(sel):
        ln = np.asarray(lines, dtype=np.int64)
        spans = np.lib.stride_tricks.sliding_window_view(ln, k)[sel]
        starts, ends = spans.min(axis=1).tolist(), spans.max(axis=1).tolist()
    else:
        starts, ends = [], []
    return Fingerprint(representation=representation, language=language, k=k, w=w, n_tokens=len(kinds),
                       hashes=h[sel].astype(np.int64).tolist(), positions=sel.tolist(),
                       line_start=starts, line_end=ends,
                       stream=list(kinds) if representation == "ops" else [],
                       stream_lines=[int(x) for x in lines] if representation == "ops" else [])


def fingerprint(code: str, language: str, representation: str = "tokens") -> Fingerprint:
    """Fingerprint one snippet in one representation ('tokens' or 'ops')."""
    lang = code_language(code, language)
    tree = parse(code, lang)
    if representation == "tokens":
        kinds, lines = token_stream(tree.root_node, lang)
    elif representation == "ops":
        kinds, lines = op_stream(tree.root_node, lang)
    else:
        raise BadInput(f"unknown fingerprint representation {representation!r} (tokens, ops)")
    return fingerprint_stream(kinds, lines, representation, lang)


def fingerprints(code: str, language: str) -> list[Fingerprint]:
    """Both representations of one snippet from a single parse: what ingest stores for each snippet."""
    lang = code_language(code, language)
    root = parse(code, lang).root_node
    kinds, lines = token_stream(root, lang)
    ops, op_lines = op_stream(root, lang)
    return [fingerprint_stream(kinds, lines, "tokens", lang), fingerprint_stream(ops, op_lines, "ops", lang)]


def kernel_units(code: str, language: str) -> list[tuple[str, str, int]]:
    """(name, source, first line) of each kernel in a file: @triton.jit functions, C/C++ function bodies,
    AscendC kernel classes (a method is template more than kernel) and free functions.

    A cohort file is compared as a whole and kernel by kernel, so that a kernel pasted into a larger
    entry is contained in its own unit even when the rest of the file (host code) is not copied.
    A unit's source is the file's own text; fingerprint it in the file's code_language.
    """
    lang = code_language(code, language)
    root = parse(code, lang).root_node
    data = code.encode("utf-8")
    out, stack = [], [root]
    while stack:
        node = stack.pop()
        if lang == "python" and node.type == "decorated_definition":
            if any(b"jit" in d.text for d in node.named_children if d.type == "decorator"):
                out.append((_unit_name(node.child_by_field_name("definition")), node.text.decode("utf-8", "replace"),
                            node.start_point[0] + 1))
            continue
        if lang != "python" and _is_unit(node, lang):
            out.append((_unit_name(node), data[node.start_byte:node.end_byte].decode("utf-8", "replace"),
                        node.start_point[0] + 1))
            continue
        if lang == "ascendc" and node.type == "function_definition":
            continue
        stack.extend(reversed(node.named_children))
    return out


def _is_unit(node, lang: str) -> bool:
    """A kernel unit: a C/C++ function; in AscendC a class or a free function that itself copies or computes
    (helpers, host code and the `__global__` entry that only runs a class are not kernels)."""
    if lang == "cpp":
        return node.type == "function_definition"
    if node.type in ("class_specifier", "struct_specifier"):
        return node.child_by_field_name("body") is not None and _calls_api(node)
    return node.type == "function_definition" and _calls_api(node)


_UNIT_API = frozenset(ASCENDC_VECTOR) | {"DataCopy", "DataCopyPad"}  # the calls that make an AscendC unit a kernel


def _calls_api(node) -> bool:
    from provenance.ascendc import callee, walk

    return any(n.type == "call_expression" and callee(n.child_by_field_name("function")) in _UNIT_API
               for n in walk(node))


def _unit_name(node) -> str:
    while node is not None and node.type not in ("identifier", "field_identifier", "qualified_identifier",
                                                 "type_identifier"):
        node = node.child_by_field_name("name") or node.child_by_field_name("declarator")
    return node.text.decode("utf-8", "replace") if node is not None else "?"


def shifted(fp: Fingerprint, lines: int) -> Fingerprint:
    """The same fingerprint with its line numbers moved down by lines (a unit cut out of a file)."""
    return fp.model_copy(update={"line_start": [x + lines for x in fp.line_start],
                                 "line_end": [x + lines for x in fp.line_end]})

