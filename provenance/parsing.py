"""Tree-sitter parsing of kernel source, and the language names it accepts (python, cpp and their aliases)."""
from __future__ import annotations

from functools import lru_cache

from provenance.errors import BadInput

_LANGUAGE_ALIASES = {
    "python": "python", "py": "python", "triton": "python",
    "c": "cpp", "cpp": "cpp", "c++": "cpp", "cxx": "cpp", "cuda": "cpp", "cu": "cpp", "ascendc": "cpp",
}


def normalize_language(language: str) -> str:
    lang = _LANGUAGE_ALIASES.get(language.lower().strip())
    if lang is None:
        raise BadInput(f"cannot fingerprint language {language!r} (known: {', '.join(sorted(_LANGUAGE_ALIASES))})")
    return lang


@lru_cache(maxsize=None)
def _parser(language: str):
    from tree_sitter import Language, Parser

    if language == "python":
        import tree_sitter_python as grammar
    else:
        import tree_sitter_cpp as grammar
    return Parser(Language(grammar.language()))


def parse(code: str, language: str):
    """The tree-sitter tree of code (a syntax error still gives a tree: tree-sitter recovers)."""
    return _parser(normalize_language(language)).parse(code.encode("utf-8"))
