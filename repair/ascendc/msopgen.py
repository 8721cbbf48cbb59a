"""The msopgen operator JSON (MultiKernelBench's `project_json_src`): its schema, checked with one-line errors.

Written from msopgen's documented fields and the operators published with it: a description's `format` and `type`
are lists (one entry per supported combination) or a single string (Ascend's single-operator JSONs), an attribute's
`type` a string ("float", "listInt") or a one-element list (MultiKernelBench's own layer-norm example); other fields
(`shape`, `default_value`, ...) are accepted as msopgen ignores what it does not use.
"""
from __future__ import annotations

import json

from repair.errors import BadInput

_NAMES = {"anyOf": [{"type": "string", "minLength": 1},
                    {"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1}}]}
_DESC = {
    "type": "object",
    "required": ["name", "param_type", "format", "type"],
    "properties": {
        "name": {"type": "string", "pattern": r"^[A-Za-z_]\w*$"},
        "param_type": {"enum": ["required", "optional", "dynamic"]},
        "format": _NAMES,
        "type": _NAMES,
    },
}
# an attribute has one type: "float", or ["float"] as MultiKernelBench's layer-norm prompt writes it
_ONE_NAME = {"anyOf": [{"type": "string", "minLength": 1},
                       {"type": "array", "minItems": 1, "maxItems": 1, "items": {"type": "string", "minLength": 1}}]}
SCHEMA = {
    "type": "array",
    "minItems": 1,
    "maxItems": 1,  # one operator per candidate: the one the kernel, host and binding name
    "items": {
        "type": "object",
        "required": ["op", "input_desc", "output_desc"],
        "properties": {
            "op": {"type": "string", "pattern": r"^[A-Z][A-Za-z0-9]*$"},
            "language": {"enum": ["cpp"]},
            "input_desc": {"type": "array", "items": _DESC},
            "output_desc": {"type": "array", "minItems": 1, "items": _DESC},
            "attr": {"type": "array", "items": {
                "type": "object", "required": ["name", "type"],
                "properties": {"name": {"type": "string", "pattern": r"^[A-Za-z_]\w*$"}, "type": _ONE_NAME,
                               "param_type": {"enum": ["required", "optional"]}}}},
        },
    },
}


def parse_op_json(text: str, where: str) -> dict:
    """The operator entry of an msopgen JSON; BadInput naming `where` and what is wrong."""
    import jsonschema

    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise BadInput(f"{where}: not JSON ({e.msg} at line {e.lineno})") from None
    errors = sorted(jsonschema.Draft202012Validator(SCHEMA).iter_errors(data), key=lambda e: list(e.absolute_path))
    if errors:
        e = errors[0]
        at = "".join(f"[{p!r}]" for p in e.absolute_path) or "the top level"
        raise BadInput(f"{where}: not an msopgen operator JSON ({at}: {_short(e)})")
    return data[0]


def _short(e) -> str:
    if e.validator == "maxItems":
        return "one operator expected"
    if e.validator == "pattern" and e.absolute_path and e.absolute_path[-1] == "op":
        return f"op {e.instance!r} is not an operator type name (CamelCase, like AddCustom)"
    return e.message if len(e.message) < 120 else e.message[:117] + "..."
