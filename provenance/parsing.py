"""Tree-sitter parsing of kernel source, and the language names it accepts (python, cpp, ascendc and their aliases)."""
from __future__ import annotations

from functools import lru_cache

from provenance.errors import BadInput

_LANGUAGE_ALIASES = {
    "python": "python", "py": "python", "triton": "python",
    "c": "cpp", "cpp": "cpp", "c++": "cpp", "cxx": "cpp", "cuda": "cpp", "cu": "cpp",
    "ascendc": "ascendc", "ascend-c": "ascendc", "ascend_c": "ascendc",
}


def normalize_language(language: str) -> str:
    """The grammar a language name is read with: python, cpp or ascendc (C++ with AscendC's qualifiers)."""
    lang = _LANGUAGE_ALIASES.get(language.lower().strip())
    if lang is None:
        raise BadInput(f"cannot fingerprint language {language!r} (known: {', '.join(sorted(_LANGUAGE_ALIASES))})")
    return lang


def code_language(code: str, language: str) -> str:
    """normalize_language, then AscendC told by its content: C++ using `__aicore__` (a cohort's .cpp) or a
    six-source Python file whose kernel_src is AscendC (a cohort's correct.py) is read as ascendc, so a file
    compares the same whatever its name or its record calls it."""
    from provenance.ascendc import is_ascendc

    lang = normalize_language(language)
    if (lang == "cpp" and is_ascendc(code)) or (lang == "python" and _six_source(code) is not None):
        return "ascendc"
    return lang


def _six_source(code: str) -> str | None:
    """provenance.ascendc.six_source_view of code, when it may be a six-source file."""
    from provenance.ascendc import six_source_view

    if "kernel_src" not in code:
        return None
    return six_source_view(code, _parser("python").parse(code.encode("utf-8")).root_node)


@lru_cache(maxsize=None)
def _parser(grammar_name: str):
    from tree_sitter import Language, Parser

    if grammar_name == "python":
        import tree_sitter_python as grammar
    else:
        import tree_sitter_cpp as grammar
    return Parser(Language(grammar.language()))


def parse(code: str, language: str):
    """The tree-sitter tree of code (a syntax error still gives a tree: tree-sitter recovers).

    ascendc is parsed as C++: a six-source file's C++ strings (provenance.ascendc.six_source_view), or the
    code, with qualifiers and launches blanked (provenance.ascendc.blank): same bytes, lines and offsets."""
    lang = normalize_language(language)
    if lang == "ascendc":
        from provenance.ascendc import blank

        code = blank(_six_source(code) or code)[0]
    return _parser("python" if lang == "python" else "cpp").parse(code.encode("utf-8"))


def language_key(language: str | None) -> str:
    """A record's language name as filters compare it: lower case, AscendC's spellings as one (ascendc)."""
    name = (language or "").lower().strip()
    return "ascendc" if _LANGUAGE_ALIASES.get(name) == "ascendc" else name
