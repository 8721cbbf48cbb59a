"""The AscendC candidate: one model for the three source formats, each source with where it came from.

A MultiKernelBench six-source file, a MultiKernelBench direct-launch JSON and an NPUKernelBench task directory
all become an `AscendCCandidate`: its sources by role, the operator's name, its kernel entry and the Python
extension module `ModelNew` imports. Findings and errors name a source's file and line as the user sees them
(a six-source string's lines are lines of the .py file that holds it).
"""
from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from provenance.canonical import content_hash

CANDIDATE_SCHEMA = "repair.ascendc-candidate/v1"

Format = Literal["mkb-sources", "mkb-direct", "npukernelbench"]
# project_json: msopgen's operator JSON; host_tiling: the tiling struct header; host_operator: TilingFunc + OpDef;
# kernel: __global__ __aicore__ code and its headers; launch: a direct-launch header; binding: the pybind11 C++;
# model: the Python file defining ModelNew
Role = Literal["project_json", "host_tiling", "host_operator", "kernel", "launch", "binding", "model"]
CPP_ROLES = ("host_tiling", "host_operator", "kernel", "launch", "binding")


class SourceFile(BaseModel):
    """One source of a candidate: its text, and the file and first line that hold it."""

    model_config = ConfigDict(frozen=True)

    role: Role
    name: str  # how the format names it: "kernel_src", "kernel/add_kernel.cpp", "op_kernel/add_custom.cpp"
    file: str  # the file on disk that holds it (the .py or .json for embedded sources)
    first_line: int = 1  # line of `file` on which the source's line 1 is
    text: str

    def where(self, line: int | None) -> tuple[str, int | None]:
        """(file, line in that file) for a line of this source."""
        return self.file, None if line is None else line + self.first_line - 1

    def label(self, line: int | None = None) -> str:
        file, at = self.where(line)
        inner = f" ({self.name})" if self.name not in file else ""
        return f"{file}{':' + str(at) if at else ''}{inner}"


class AscendCCandidate(BaseModel):
    """An AscendC candidate in any of the three formats, normalised."""

    model_config = ConfigDict(populate_by_name=True)

    schema_: Literal["repair.ascendc-candidate/v1"] = Field(CANDIDATE_SCHEMA, alias="schema")
    language: Literal["ascendc"] = "ascendc"
    format: Format
    path: str
    op: str | None  # the operator type (AddCustom); None for a direct launch, which registers none
    kernel: str  # the kernel entry (add_custom), or the first __global__ kernel of a direct launch
    extension: str  # the Python module ModelNew calls (custom_ops_lib, benchmark_ops, kernel_gen_ops)
    sources: list[SourceFile]
    notes: list[str] = Field(default_factory=list)  # what loading did to the sources (placeholders substituted)

    def of(self, *roles: str) -> list[SourceFile]:
        return [s for s in self.sources if s.role in roles]

    @property
    def model(self) -> SourceFile:
        return self.of("model")[0]

    @property
    def sha256(self) -> str:
        """Content id: the sources (role, name, text) and the format; not where they lie on disk."""
        return content_hash({"format": self.format, "sources": sorted(
            [s.role, s.name, s.text] for s in self.sources)})


def snake(op: str) -> str:
    """msopgen's kernel entry name for an operator type: AddCustom -> add_custom, LayerNormV2 -> layer_norm_v2."""
    s = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", op)
    return s.lower()
