"""Match and apply rules: one candidate per match site, plus one with every site rewritten.

ast-grep-py does the structural matching; it does not fill metavariables into a fix, so the
rewrite template is expanded here from the matched nodes' source text.
"""
from __future__ import annotations

import ast
import difflib
import re
from dataclasses import dataclass, field

from ingest.rules.errors import BadRule, BadSource
from ingest.rules.model import Rule

_LITERAL = {
    "python": ["integer", "float", "string", "true", "false", "none"],
    "cpp": ["number_literal", "string_literal", "char_literal", "true", "false", "null"],
}
_NUMBER = {"python": ["integer", "float"], "cpp": ["number_literal"]}
_STRING = {"python": ["string"], "cpp": ["string_literal", "raw_string_literal"]}
_CALL = {"python": ["call"], "cpp": ["call_expression"]}
_ATTRIBUTE = {"python": ["attribute"], "cpp": ["field_expression", "qualified_identifier"]}
_KERNEL = {
    "python": {"kind": "decorated_definition", "stopBy": "end",
               "has": {"kind": "decorator", "regex": r"\bjit\b"}},
    "cpp": {"kind": "function_definition", "stopBy": "end", "regex": r"__global__|__aicore__"},
}
_MULTI = re.compile(r"\$\$\$([A-Z_][A-Z0-9_]*)?")
_SINGLE = re.compile(r"\$([A-Z_][A-Z0-9_]*)")


@dataclass(frozen=True)
class RuleApplication:
    """One candidate patch: the whole patched source and where the rule fired."""

    rule_id: str
    patched_source: str
    location: str  # "line:col" of the site, or "all:l1,l2,..." for the every-site candidate
    sites: tuple[int, ...] = field(default=())  # 1-based lines rewritten
    changed_lines: int = 0  # removed + added lines of the diff: the cost used to order candidates


def _kinds(kinds: list[str], signed: bool = False) -> dict:
    alts: list[dict] = [{"kind": k} for k in kinds]
    if signed:  # -1.0, -float('inf') count as literals
        alts.append({"kind": "unary_operator", "has": {"any": [{"kind": k} for k in kinds]}})
    return {"any": alts}


def _constraint(c, lang: str) -> dict:
    parts: list[dict] = []
    if c.kind == "identifier":
        parts.append({"kind": "identifier"})
    elif c.kind == "literal":
        parts.append(_kinds(_LITERAL[lang], signed=lang == "python"))
    elif c.kind == "number":
        parts.append(_kinds(_NUMBER[lang], signed=lang == "python"))
    elif c.kind == "string":
        parts.append(_kinds(_STRING[lang]))
    elif c.kind == "call":
        parts.append(_kinds(_CALL[lang]))
    elif c.kind == "attribute":
        parts.append(_kinds(_ATTRIBUTE[lang]))
    if c.regex:
        parts.append({"regex": c.regex})
    if c.not_regex:
        parts.append({"not": {"regex": c.not_regex}})
    return {"all": parts} if len(parts) != 1 else parts[0]


def _in_function(pattern: str) -> dict:
    return {"inside": {"kind": "function_definition", "stopBy": "end",
                       "has": {"pattern": pattern, "stopBy": "end"}}}


def compile_rule(rule: Rule) -> dict:
    """The ast-grep config (rule + constraints) a Rule stands for."""
    extra: list[dict] = []
    if rule.context == "kernel":
        extra.append({"inside": _KERNEL[rule.language]})
    elif rule.context == "host":
        extra.append({"not": {"inside": _KERNEL[rule.language]}})
    extra += [_in_function(p) for p in rule.requires]
    if rule.requires_any:
        extra.append({"any": [_in_function(p) for p in rule.requires_any]})
    extra += [{"not": _in_function(p)} for p in rule.forbids]
    extra += [{"not": {"inside": {"pattern": p, "stopBy": "end"}}} for p in rule.not_inside]
    core = {"pattern": {"context": rule.pattern, "selector": rule.selector} if rule.selector else rule.pattern}
    config: dict = {"rule": {"all": [core, *extra]} if extra else core}
    constraints = {name: _constraint(c, rule.language) for name, c in rule.where.items() if c != type(c)()}
    if constraints:
        config["constraints"] = constraints
    return config


def check_rule(rule: Rule) -> None:
    """Raise BadRule when the pattern does not parse or the config does not compile."""
    from ast_grep_py import SgRoot

    from ingest.rules.meaning import FACTS

    flow_patterns = [p for f in rule.flows for end in (f.source, f.sink, f.not_sink, f.then) if isinstance(end, list)
                     for p in end]
    for label, text in [("pattern", rule.pattern), *[(f"requires {p!r}", p) for p in rule.requires + rule.requires_any],
                        *[(f"forbids {p!r}", p) for p in rule.forbids],
                        *[(f"not_inside {p!r}", p) for p in rule.not_inside],
                        *[(f"flow {p!r}", p) for p in flow_patterns]]:
        plain = _SINGLE.sub(lambda m: m.group(1), _MULTI.sub("", re.sub(r",\s*\$\$\$[A-Z_]*", "", text)
                                                            if rule.language != "python" else text))
        # C++: an expression or statement is not a translation unit; it parses inside a function body
        tries = [plain] if rule.language == "python" else [plain, f"void f() {{ {plain}; }}"]
        if all(SgRoot(t, rule.language).root().find(kind="ERROR") is not None for t in tries):
            raise BadRule(f"rule {rule.id}: {label} does not parse as {rule.language}")
    for name, spec in rule.derive.items():
        if spec.fact not in FACTS:
            raise BadRule(f"rule {rule.id}: ${name}: unknown fact {spec.fact!r} (known: {', '.join(sorted(FACTS))})")
    if rule.flows and rule.language != "python":
        raise BadRule(f"rule {rule.id}: flows are read from Python (Triton) sources only")
    if rule.language != "python":
        from ingest.rules.facts_cpp import CPP_FACTS

        for name, spec in rule.derive.items():
            if spec.fact not in CPP_FACTS:
                raise BadRule(f"rule {rule.id}: ${name}: fact {spec.fact!r} reads Python sources; C++ rules may "
                              f"derive {', '.join(sorted(CPP_FACTS))}")
    _find(rule, SgRoot("", rule.language).root())


def _find(rule: Rule, root) -> list:
    try:
        return list(root.find_all(compile_rule(rule)))
    except BaseException as exc:  # ast-grep raises a bare Exception (or a pyo3 panic) with a backtrace
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        raise BadRule(f"rule {rule.id}: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}") from None


_TOKEN = re.compile(r"(\$\$\$[A-Z_][A-Z0-9_]*|\$[A-Z_][A-Z0-9_]*)")


def _expand(template: str, match, source: str, indent: str, derived: dict[str, str] | None = None,
            spell=None) -> str:
    """Fill the rewrite template from the match (and derived metavariables); later lines get the site's indentation.

    A match's text is read from `source` (a C++ rule matches a view with AscendC's qualifiers blanked:
    ingest.rules.cpp_view); with `spell` (C++), AscendC names the template's own text brings in are qualified as the
    file qualifies its others."""
    from ingest.rules.cpp_view import qualified_before, qualify_literal

    out = []
    derived = derived or {}
    first_qualified = spell is not None and qualified_before(source, match.range().start.index)
    for n, piece in enumerate(_TOKEN.split(template)):
        if piece.startswith("$$$"):
            nodes = match.get_multiple_matches(piece[3:])
            text = source[nodes[0].range().start.index:nodes[-1].range().end.index] if nodes else ""
            if text.startswith(",") and out:  # "f($X $$$REST)": no space before the bound comma
                out[-1] = out[-1].rstrip(" ")
            out.append(text)
        elif piece.startswith("$") and piece[1:] in derived:
            out.append(derived[piece[1:]])
        elif piece.startswith("$"):
            node = match.get_match(piece[1:])
            out.append(_node_source(node, source, spell is not None, match.range().start.index)
                       if node is not None else "")
        elif spell is not None:
            out.append(qualify_literal(piece, spell, first_is_qualified=first_qualified and n == 0))
        else:
            out.append(piece)
    lines = "".join(out).split("\n")
    return "\n".join([lines[0], *[(indent + ln) if ln else ln for ln in lines[1:]]])


_ADDRESS_SPACE = re.compile(r"\b__(?:gm|ubuf)__\s+$")


_BLANKED = re.compile(r"(?:(?:::\s*)?[A-Za-z_]\w*\s*::\s*)+$")


def _node_source(node, source: str, cpp: bool, match_start: int | None = None) -> str:
    """A bound node's text as the source writes it; in C++ with the address-space qualifier before it, which
    tree-sitter leaves out of the type it qualifies (`(__gm__ T *)x` binds T * to a cast's type), and with the
    AscendC qualifier the view blanked before it (`AscendC::GetBlockIdx()` bound as `GetBlockIdx()`) where that
    qualifier lies inside the match (one before the match stays in the source, outside the rewritten range)."""
    start, end = node.range().start.index, node.range().end.index
    if cpp:
        m = _ADDRESS_SPACE.search(source[max(0, start - 40):start])
        if m:
            start -= len(m.group(0))
        elif match_start is not None and start > match_start:
            q = _BLANKED.search(source[max(match_start, start - 64):start])
            if q:
                start -= len(q.group(0))
    return source[start:end]


_OPERAND_OF = {"binary_operator", "unary_operator", "comparison_operator", "boolean_operator", "not_operator",
               "attribute", "subscript", "await"}
_LOOSE = (ast.BinOp, ast.BoolOp, ast.Compare, ast.IfExp, ast.Lambda, ast.UnaryOp, ast.NamedExpr)


def _parenthesise(match, text: str, language: str) -> str:
    """A rewrite that is a looser expression than the operand it replaces keeps its meaning in parentheses."""
    parent = match.parent()
    if language != "python" or parent is None or parent.kind() not in _OPERAND_OF or "\n" in text:
        return text
    try:
        expr = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        return text
    if not isinstance(expr, _LOOSE):
        return text
    if isinstance(expr, ast.BinOp) and parent.kind() == "binary_operator" and match.kind() == "binary_operator":
        same = [c.text() for c in match.children() if not c.is_named()] == [_OPS.get(type(expr.op), "")]
        if same and parent.field("left") is not None and parent.field("left").range().start.index == \
                match.range().start.index:
            return text  # the same operator on the left of its parent: precedence is unchanged
    return f"({text})"


_OPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**"}


def parses(source: str, language: str) -> bool:
    """Python: ast.parse accepts it; C++: tree-sitter finds no error node."""
    if language == "python":
        try:
            ast.parse(source)
            return True
        except (SyntaxError, ValueError):
            return False
    return _errors(source, language) == 0


def _errors(source: str, language: str) -> int:
    from ast_grep_py import SgRoot

    return len(SgRoot(source, language).root().find_all(kind="ERROR"))


def changed_lines(before: str, after: str) -> int:
    """Removed plus added lines between two sources."""
    diff = difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
    return sum(1 for ln in diff if ln[:1] in "+-" and not ln.startswith(("+++", "---")))


def _splice(source: str, edits: list[tuple[int, int, str]]) -> str | None:
    """Source with the edits made; None when two of them overlap."""
    out, pos = [], 0
    for start, end, text in sorted(edits, key=lambda e: (e[0], e[1])):
        if start < pos:
            return None
        out += [source[pos:start], text]
        pos = end
    return "".join(out + [source[pos:]])


MAX_EVERY_SITE_WAYS = 3  # every-site rewrites tried: each site's first way, its second, its third


def apply_rule(rule: Rule, source: str, *, reference: str | None = None,
               companions: tuple[str, ...] = ()) -> list[RuleApplication]:
    """Every candidate patch the rule yields on source: one per site (and way to fire there), then one with all sites.

    `reference` is the problem's source, for rules that say what the reference must (not) do; None skips
    those checks. `companions`: the candidate's other sources, which some facts read (ingest.rules.facts).
    """
    from ast_grep_py import SgRoot

    from ingest.rules.meaning import options_at, reference_fits
    from ingest.rules.program import parse_module

    if not isinstance(source, str):
        raise BadSource(f"rule {rule.id}: source must be text, got {type(source).__name__}")
    if not reference_fits(rule, reference):
        return []
    spell = None
    if rule.language == "cpp":
        from ingest.rules.cpp_view import spelling, view

        root, spell = SgRoot(view(source), rule.language).root(), spelling(source)
    else:
        root = SgRoot(source, rule.language).root()
    matches = _find(rule, root)
    if not matches:
        return []
    # a patch may not break the parse; C++ sources may carry CUDA/AscendC qualifiers the grammar
    # reads as errors, so there a patch may not add errors
    source_errors = 0 if rule.language == "python" and parses(source, "python") else None
    if rule.language != "python":
        source_errors = _errors(source, rule.language)
    module = parse_module(root) if (rule.derive or rule.flows) and rule.language == "python" else None
    sites = []  # (edits, line, col, plain): plain = one edit at the site itself, nothing elsewhere
    for m in matches:
        r = m.range()
        line_start = source.rfind("\n", 0, r.start.index) + 1
        indent = re.match(r"[ \t]*", source[line_start:]).group(0)
        ways = options_at(rule, m, source, root, module, companions) if rule.uses_v2() else [({}, ())]
        for derived, extra in ways:
            text = _parenthesise(m, _expand(rule.rewrite, m, source, indent, derived, spell), rule.language)
            edits = ([(r.start.index, r.end.index, text)] if text != source[r.start.index:r.end.index] else [])
            edits += list(extra)
            if edits:
                sites.append((edits, r.start.line + 1, r.start.column + 1, not extra))
    out: list[RuleApplication] = []
    seen = {source}

    def add(edits: list[tuple[int, int, str]], location: str) -> None:
        patched = _splice(source, edits)
        if patched is None or patched in seen:
            return
        if source_errors is not None and (
                not parses(patched, "python") if rule.language == "python" else _errors(patched, rule.language) > source_errors):
            return
        seen.add(patched)
        lines = tuple(sorted({source.count("\n", 0, e[0]) + 1 for e in edits}))
        out.append(RuleApplication(rule.id, patched, location, lines, changed_lines(source, patched)))

    for edits, line, col, _plain in sorted(sites, key=lambda s: (s[1], s[2])):
        add(edits, f"{line}:{col}")
    # every site at once and the edits elsewhere its facts need (a statement moved at two sites): first each site
    # with its first way to fire, then with its second, third (the same derivation at every site: one offset
    # spelled alike in each buffer); the outermost of overlapping matches wins, a site whose edits overlap the
    # chosen ones waits
    ways_at: dict[tuple[int, int], list] = {}
    for edits, line, col, _plain in sites:
        ways_at.setdefault((line, col), []).append(edits)
    if len(ways_at) > 1:
        for k in range(min(MAX_EVERY_SITE_WAYS, max(len(w) for w in ways_at.values()))):
            chosen, lines, taken = [], [], []
            order = sorted(ways_at.items(), key=lambda kv: (kv[1][0][0][0], -kv[1][0][0][1]))
            for (line, _col), ways in order:
                edits = ways[k] if k < len(ways) else ways[0]
                if any(_overlap(e, t) for e in edits for t in taken):
                    continue
                chosen += edits
                taken += edits
                lines.append(line)
            if len(lines) > 1:
                add(chosen, "all:" + ",".join(str(ln) for ln in lines) + (f"#{k + 1}" if k else ""))
    return out


def _overlap(a: tuple[int, int, str], b: tuple[int, int, str]) -> bool:
    """Two edits touch the same text (an insertion at another edit's boundary does not)."""
    (s1, e1, _), (s2, e2, _) = a, b
    if s1 == e1 or s2 == e2:  # an insertion overlaps only a replacement it falls strictly inside
        return (s1 == e1 and s2 < s1 < e2) or (s2 == e2 and s1 < s2 < e1) or (s1 == e1 == s2 == e2)
    return s1 < e2 and s2 < e1


def apply_rules(rules: list[Rule], source: str, *, reference: str | None = None) -> list[RuleApplication]:
    """Candidates of several rules, cheapest first (fewest changed lines), duplicates dropped."""
    seen: set[str] = set()
    out: list[RuleApplication] = []
    for order, app in sorted(((i, a) for i, r in enumerate(rules) for a in apply_rule(r, source, reference=reference)),
                             key=lambda ia: (ia[1].changed_lines, len(ia[1].sites), ia[0])):
        key = program_key(app.patched_source, rules[order].language)
        if key not in seen:  # two rules writing the same program (modulo formatting) cost one evaluation
            seen.add(key)
            out.append(app)
    return out


def program_key(source: str, language: str) -> str:
    """A key equal for programs that differ only in formatting, comments or docstrings (C++: its tokens)."""
    if language == "python":
        try:
            return ast.dump(_strip_docstrings(ast.parse(source)))
        except (SyntaxError, ValueError):
            return source
    from ast_grep_py import SgRoot

    tokens: list[str] = []
    _leaves(SgRoot(source, language).root(), tokens)
    return "\x00".join(tokens)


def _leaves(node, out: list[str]) -> None:
    kids = node.children()
    if not kids:
        if node.kind() != "comment":
            out.append(node.text())
        return
    if node.kind() == "comment":
        return
    for k in kids:
        _leaves(k, out)


def _strip_docstrings(tree: ast.AST) -> ast.AST:
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(body, list) and body and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str)):
            node.body = body[1:] or [ast.Pass()]
    return tree


def equivalent(a: str, b: str, language: str = "python") -> bool:
    """Same program modulo formatting, comments and docstrings (Python: equal ASTs; C++: equal tokens)."""
    if language == "python":
        try:
            return ast.dump(_strip_docstrings(ast.parse(a))) == ast.dump(_strip_docstrings(ast.parse(b)))
        except (SyntaxError, ValueError):
            pass
    from ast_grep_py import SgRoot

    ta: list[str] = []
    tb: list[str] = []
    _leaves(SgRoot(a, language).root(), ta)
    _leaves(SgRoot(b, language).root(), tb)
    return ta == tb
