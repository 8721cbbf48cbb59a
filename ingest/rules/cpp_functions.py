"""The functions a C++ file defines, read with tree-sitter: by name, their parameter names and their body.

tree-sitter's recovery from a construct it does not know (a macro such as `__aicore__`, an attribute) can leave the
functions after it as bare declarators in an ERROR node; each such body is then parsed on its own, and its offset in
the file kept, so a rule sees every function the compiler would.
"""
from __future__ import annotations


def functions(root, code: str) -> dict[str, tuple[list[str], object, int]]:
    """name -> (parameter names, body node, offset of the body's text in the file: 0 where the body is a node of
    `root`, else where the separately parsed body's text starts). The first definition of a name wins."""
    found: dict[str, tuple[list[str], object, int]] = {}
    for fn in root.find_all(kind="function_definition"):
        decl = declarator(fn)
        if decl is None or fn.field("body") is None:
            continue
        name = decl.field("declarator")
        if name is not None:
            found.setdefault(name.text().split("::")[-1].strip(), (param_names(decl), fn.field("body"), 0))
    for decl in root.find_all(kind="function_declarator"):
        name = decl.field("declarator")
        if name is None or decl.parent() is None or decl.parent().kind() == "function_definition":
            continue
        key = name.text().split("::")[-1].strip()
        body = _body_after(code, decl.range().end.index)
        if key in found or body is None:
            continue
        from ast_grep_py import SgRoot

        prefix = "void f__()\n"
        sub = SgRoot(prefix + code[body[0]:body[1]], "cpp").root().find(kind="compound_statement")
        if sub is not None:
            found[key] = (param_names(decl), sub, body[0] - len(prefix))
    return found


def declarator(func):
    """A function definition's function_declarator (under its pointer or reference declarators), or None."""
    decl = func.field("declarator")
    while decl is not None and decl.kind() != "function_declarator":
        decl = decl.field("declarator")
    return decl


def enclosing_function(node):
    """The function definition the node lies in (the node itself if it is one), or None."""
    while node is not None and node.kind() != "function_definition":
        node = node.parent()
    return node


def function_name(func) -> str | None:
    """A function definition's name without its class or namespace (`KernelX::Init` -> Init), or None."""
    decl = declarator(func)
    name = decl.field("declarator") if decl is not None else None
    return name.text().split("::")[-1].strip() if name is not None else None


def function_params(func) -> list[str]:
    """A function definition's parameter names, in order."""
    decl = declarator(func)
    return param_names(decl) if decl is not None else []


def param_names(decl) -> list[str]:
    """The parameter names of a function_declarator, in order (under their pointer and reference declarators)."""
    ps = decl.field("parameters")
    return [_base_param(p) for p in (ps.children() if ps is not None else []) if p.kind() == "parameter_declaration"]


def _body_after(code: str, at: int) -> tuple[int, int] | None:
    """The balanced `{...}` that opens after `at` (past a const/override/initialiser list), or None."""
    start = code.find("{", at)
    if start < 0 or ";" in code[at:start]:
        return None
    depth = 0
    for i in range(start, len(code)):
        if code[i] == "{":
            depth += 1
        elif code[i] == "}":
            depth -= 1
            if depth == 0:
                return start, i + 1
    return None


def _base_param(p) -> str:
    d = p.field("declarator")
    while d is not None and d.kind() not in ("identifier",):
        d = d.field("declarator") if d.field("declarator") is not None else next(
            (c for c in d.children() if c.kind() == "identifier"), None)
    return d.text() if d is not None else ""
