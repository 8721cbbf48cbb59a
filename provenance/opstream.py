"""A language-neutral stream of kernel operations, the same for a Triton kernel and its C/C++ port.

Token-level fingerprints compare one language at a time, so a Triton kernel rewritten as C loops (as
when a pattern learned on GPUs is carried to AscendC) shares none of them. This module maps both into
one vocabulary of data operations in evaluation order (operands before operators):

  LOAD STORE  ADD SUB MUL DIV NEG POW MOD  EXP EXP2 LOG LOG2 SQRT TANH ERF ABS SIN COS  MAX MIN
  CMP SELECT  REDUCE_SUM REDUCE_MAX REDUCE_MIN REDUCE_ARGMAX REDUCE_ARGMIN SCAN_SUM
  K:<value>   a numeric literal operand of a data op (``x * 0.5`` is K:0.5 MUL), since a port keeps
              its formula's constants and an independent implementation often does not

What makes the two languages line up:
- only *data* is followed: a value is what a load returns and whatever is computed from one; index
  and address arithmetic (program ids, offsets, masks, subscripts, loop bounds) emits nothing, since
  Triton computes it on blocks and C in scalar loop headers; a select on a bounds mask
  (``tl.where(cols < n, x, 0)``, ``i < n ? x[i] : 0``) is masking, not data, and emits nothing;
- a reduction is ``tl.sum/tl.max`` in Triton and a loop-carried accumulator in C (``s += v``,
  ``m = fmaxf(m, v)``, ``if (v > m) m = v``, ``m = v > m ? v : m``, ``s = s * a + v``); ``tl.dot`` is
  MUL REDUCE_SUM; composite functions are spelled out (``rsqrt`` = SQRT K:1.0 DIV, ``sigmoid`` =
  NEG EXP K:1.0 ADD K:1.0 DIV);
- memory traffic is counted the way a register-blocked kernel does it: a load into a name is emitted
  where the name is first used (load early and load at use agree), the first read of an array is a
  LOAD and re-reads are not (C re-reads x in every pass, Triton keeps the row in registers), and a
  store to an array that is read back later is an intermediate, not a STORE;
- an expression computed twice in one function is computed once (``expf(x[j] - m)`` recomputed in a
  last pass is the temporary a Triton kernel keeps);
- loops and masks are *not* tokens: Triton's element loop is implicit in the block, C's is explicit,
  and a mask in one is a loop bound in the other; emitting them would separate exact ports.
Consecutive identical reductions collapse (a tiled ``acc += x`` followed by ``tl.sum(acc)``).
Limits (measured): kernels of fewer than 7 ops are not told apart across languages (a matmul and a
row-wise dot product are both LOAD LOAD MUL REDUCE_SUM STORE); a port that rearranges its formula
(``x * 0.5 * (1 + erf(x * M_SQRT1_2))`` for ``0.5 * (1 + erf(x * 0.7071)) * x``) shares few 4-grams.

AscendC (provenance.opstream_ascendc): its vector calls (``Exp(dst, src, n)``, ``ReduceMax``, ``Muls``,
``DataCopy`` between GlobalTensors and local ones) are mapped onto the same vocabulary, and its kernel class
is walked in the order Process calls its methods, loads followed through the queues.
"""
from __future__ import annotations

from provenance.opstream_ascendc import AscendCWalker
from provenance.opstream_c import CWalker
from provenance.opstream_py import PythonWalker
from provenance.parsing import code_language, parse


def op_stream(root, language: str) -> tuple[list[str], list[int]]:
    """(ops, 1-based line of each) for a parsed tree; language is 'python', 'cpp' or 'ascendc'."""
    if language == "ascendc":
        w = AscendCWalker()
        w.program(root)
        return w.finish()
    walker = PythonWalker if language == "python" else CWalker
    w = walker()
    w.prepare(root)
    w.stmt(root)
    if w.inlined:  # again, without walking the helpers followed at their calls on their own as well
        w = walker(skip=frozenset(w.inlined))
        w.prepare(root)
        w.stmt(root)
    return w.finish()


def ops_of(code: str, language: str) -> list[str]:
    """The op stream of a snippet (for inspection and tests)."""
    lang = code_language(code, language)
    return op_stream(parse(code, lang).root_node, lang)[0]
