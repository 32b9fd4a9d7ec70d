"""Blueprint entries: one per target (theorem, lemma, theorem_set) or scheduled iteration.

An entry keeps every ``## meta`` field as text, in file order, so unknown fields survive a
rewrite; the typed properties (status, attempts, uses, plan, …) read and write through it.
Sections other than ``meta`` and ``statement`` are kept verbatim.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "ENTRY_KINDS",
    "ITERATION_LABEL",
    "MAX_ITERATION_INDEX",
    "LABEL_PATTERN",
    "META_ORDER",
    "STATUSES",
    "TARGET_KINDS",
    "Blueprint",
    "Entry",
    "EntryKind",
    "IterationSpec",
    "Section",
    "Status",
    "iteration_index",
    "parse_attempts",
]

EntryKind = Literal["theorem", "lemma", "theorem_set", "iteration"]
Status = Literal["todo", "running", "partial", "done", "failed", "exhausted"]
ENTRY_KINDS: tuple[str, ...] = get_args(EntryKind)
TARGET_KINDS: tuple[str, ...] = ("theorem", "lemma", "theorem_set")
STATUSES: tuple[str, ...] = get_args(Status)
# Lean names may contain dots and primes; labels are single tokens.
LABEL_PATTERN = re.compile(r"^[^\s#`,]+$")
# canonical and bounded: no leading zeros (iter_01 is not iter_1), at most MAX_ITERATION_INDEX
ITERATION_LABEL = re.compile(r"^iter_(0|[1-9][0-9]{0,5})$")
MAX_ITERATION_INDEX = 999_999
# canonical order of meta fields in a newly written entry; unknown fields follow
META_ORDER: tuple[str, ...] = (
    "label", "uses", "file", "status", "attempts", "crashes", "statement_sha", "proof_sha", "plan", "results",
)

_ATTEMPTS = re.compile(r"^\s*(\d+)\s*(?:/\s*(\d+)\s*)?$")


def parse_attempts(text: str) -> tuple[int, int | None]:
    """``"N / M"`` → (N, M); ``"N"`` → (N, None). Raises ValueError otherwise."""
    match = _ATTEMPTS.match(text)
    if match is None:
        raise ValueError(f"attempts {text!r} is not 'N / M'")
    return int(match.group(1)), int(match.group(2)) if match.group(2) is not None else None


def iteration_index(label: str) -> int | None:
    """The N of an ``iter_N`` label, else None."""
    match = ITERATION_LABEL.match(label)
    return int(match.group(1)) if match else None


class Section(BaseModel):
    """A ``## name`` section kept verbatim (its body is the raw text after the heading line)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    body: str = ""


class Entry(BaseModel):
    """One target or iteration of a blueprint."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: EntryKind
    label: str
    meta: dict[str, str] = Field(default_factory=dict, description="every meta field as text, in file order")
    statement: str | None = None
    intro: str = Field(default="", description="text between the heading and the first section")
    sections: tuple[Section, ...] = ()

    # ------------------------------------------------------------ typed reads

    @property
    def status(self) -> str:
        """Current status (``todo`` when the field is absent)."""
        return self.meta.get("status", "todo")

    @property
    def attempts(self) -> int:
        """Attempts used so far (0 when absent or unreadable)."""
        try:
            return parse_attempts(self.meta.get("attempts", "0"))[0]
        except ValueError:
            return 0

    @property
    def budget(self) -> int | None:
        """The attempts budget M of ``attempts: N / M`` (None = unbounded)."""
        try:
            return parse_attempts(self.meta.get("attempts", "0"))[1]
        except ValueError:
            return None

    @property
    def crashes(self) -> int:
        """Restarts after a crash, counted apart from attempts (0 when absent or unreadable)."""
        raw = self.meta.get("crashes", "0").strip()
        return int(raw) if raw.isdigit() else 0

    @property
    def proof_sha(self) -> str | None:
        """The hash of the recorded proof of a done target (its ProofRecord in the proof ledger)."""
        return self.meta.get("proof_sha") or None

    @property
    def uses(self) -> tuple[str, ...]:
        """Labels this entry depends on."""
        return tuple(u.strip() for u in self.meta.get("uses", "").split(",") if u.strip())

    @property
    def file(self) -> str | None:
        """The source file (a Lean file or a theorem set) if any."""
        return self.meta.get("file") or None

    @property
    def statement_sha(self) -> str | None:
        """The statement hash recorded at registration (the lock)."""
        return self.meta.get("statement_sha") or None

    @property
    def plan(self) -> dict[str, Any]:
        """An iteration's plan (JSON object in the meta field ``plan``)."""
        return _json_field(self.meta.get("plan"))

    @property
    def results(self) -> dict[str, Any]:
        """An iteration's or target's recorded results (JSON object)."""
        return _json_field(self.meta.get("results"))

    @property
    def notes(self) -> str:
        """The body of the ``## notes`` section ('' when absent)."""
        for section in self.sections:
            if section.name == "notes":
                return section.body.strip("\n")
        return ""

    @property
    def is_target(self) -> bool:
        """True for theorems, lemmas and theorem sets."""
        return self.kind in TARGET_KINDS

    # ------------------------------------------------------------ copies with changes

    def with_meta(self, **changes: str | None) -> Entry:
        """A copy with meta fields set (``None`` removes a field); new fields go in canonical order."""
        meta = dict(self.meta)
        for key, value in changes.items():
            if value is None:
                meta.pop(key, None)
            else:
                meta[key] = value
        if any(key not in self.meta for key in changes):
            meta = _canonical_order(meta, self.meta)
        return self.model_copy(update={"meta": meta})

    def with_note(self, text: str) -> Entry:
        """A copy with a line appended to the ``## notes`` section (created if absent).

        A note is data: one that could break the line (and so start a heading or a fence
        that reshapes the file) is written as a JSON string on one line."""
        if any(c in text for c in _LINE_BREAKS):
            text = json.dumps(text, ensure_ascii=True)
        sections = list(self.sections)
        for i, section in enumerate(sections):
            if section.name == "notes":
                body = section.body.rstrip("\n")
                sections[i] = Section(name="notes", body=(body + "\n" if body else "") + text + "\n")
                break
        else:
            sections.append(Section(name="notes", body=text + "\n"))
        return self.model_copy(update={"sections": tuple(sections)})


# what ends a line when the file is read back (universal newlines) or shown by an editor
_LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


def _json_field(text: str | None) -> dict[str, Any]:
    if not text:
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _canonical_order(meta: dict[str, str], old: dict[str, str]) -> dict[str, str]:
    """Known fields in META_ORDER, then unknown ones in their old order, then new unknown ones."""
    known = [k for k in META_ORDER if k in meta]
    rest = [k for k in old if k in meta and k not in META_ORDER]
    rest += [k for k in meta if k not in META_ORDER and k not in rest]
    return {k: meta[k] for k in known + rest}


class IterationSpec(BaseModel):
    """What a scheduled iteration should do; stored as the entry's ``plan``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    label: str | None = Field(
        default=None, max_length=64, description="iter_N (canonical: no leading zeros); default: the next free index"
    )
    train_set: str | None = Field(default=None, description="built-in set name or a .jsonl path (None: config)")
    train_size: int | None = Field(default=None, ge=1, description="theorems searched (None: config)")
    eval_set: str | None = Field(default=None, description="held-out set name or a .jsonl path (None: config)")
    eval_size: int | None = Field(default=None, ge=1, description="held-out theorems evaluated (None: config)")
    max_nodes: int | None = Field(default=None, ge=1, description="search node budget per theorem")
    num_candidates: int | None = Field(default=None, ge=1, description="tactics sampled per state")
    use_ebm: bool = Field(default=True, description="search the training set with the energy head")
    attempts_budget: int | None = Field(default=None, ge=1, description="runs allowed (retries after failure)")
    uses: tuple[str, ...] = Field(default=(), max_length=64)
    note: str | None = Field(default=None, max_length=2000)

    def plan(self) -> dict[str, Any]:
        """The plan fields (everything that tells the runner what to do), without Nones."""
        return self.model_dump(exclude={"label", "attempts_budget", "uses", "note"}, exclude_none=True)


class Blueprint:
    """A parsed BLUEPRINT.md: the preamble, the entries in order, and what was read (for byte-exact writes)."""

    __slots__ = ("entries", "lines", "originals", "preamble", "source")

    def __init__(
        self,
        entries: list[Entry] | None = None,
        preamble: str = "",
        source: str | None = None,
    ) -> None:
        self.entries: list[Entry] = list(entries or [])
        self.preamble = preamble
        self.source = source
        # label -> (entry as parsed, its exact text); the writer reuses the text when unchanged
        self.originals: dict[str, tuple[Entry, str]] = {}
        self.lines: dict[str, int] = {}

    def labels(self) -> list[str]:
        """Every label, in file order."""
        return [e.label for e in self.entries]

    def next_iteration_index(self) -> int:
        """The N of the next free ``iter_N`` label (one past the highest in use)."""
        used = [iteration_index(e.label) for e in self.entries]
        return max((i for i in used if i is not None), default=-1) + 1

    def find(self, label: str) -> Entry | None:
        """The entry with that label, or None."""
        for entry in self.entries:
            if entry.label == label:
                return entry
        return None

    def replace(self, entry: Entry) -> None:
        """Put ``entry`` in place of the entry with its label, or append it."""
        for i, old in enumerate(self.entries):
            if old.label == entry.label:
                self.entries[i] = entry
                return
        self.entries.append(entry)

    def __len__(self) -> int:
        return len(self.entries)
