"""Wire models of the Pantograph REPL protocol (v0.3.4), exactly as PANTOGRAPH.md describes.

Requests are encoded as ``{"cmd": ..., "payload": {...}}`` on one line; answers are compact,
key-sorted JSON objects whose absent optional fields are omitted, never null. The same
models are used by the client (burnqed.lean.worker) and by the embedded checker, so both
sides of the pipe agree by construction.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from burnqed.lean.errors import LeanProtocolError, LeanReplError

__all__ = [
    "ANSWER_TYPES",
    "REQUEST_TYPES",
    "Answer",
    "CompilationUnit",
    "ExprEcho",
    "ExprEchoResult",
    "FrontendProcess",
    "FrontendProcessResult",
    "Expression",
    "Goal",
    "GoalDelete",
    "GoalDeleteResult",
    "GoalPrint",
    "GoalPrintResult",
    "GoalStart",
    "GoalStartResult",
    "GoalTactic",
    "GoalTacticResult",
    "Message",
    "OptionsPrint",
    "OptionsPrintResult",
    "OptionsSet",
    "OptionsSetResult",
    "ReplErrorAnswer",
    "Request",
    "Reset",
    "ResetResult",
    "Stat",
    "StatResult",
    "Variable",
    "decode_answer",
    "dump_json",
    "encode_request",
    "render_goal",
    "render_goals",
]


def dump_json(obj: Any) -> str:
    """Compact, key-sorted JSON as Pantograph prints it (UTF-8 kept, no spaces)."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


class _Wire(BaseModel):
    """Frozen wire model: camelCase aliases, absent optionals omitted on output."""

    # a model's validator is built when first used, not at import: a checker process uses a
    # few of these models and starts about a third faster (every Lean worker of a pool is one)
    model_config = ConfigDict(frozen=True, populate_by_name=True, extra="ignore", defer_build=True)

    def wire(self) -> dict[str, Any]:
        """The JSON object for the wire (aliases, no None fields)."""
        return self.model_dump(by_alias=True, exclude_none=True, mode="json")


# ---------------------------------------------------------------- expressions and goals


class Expression(_Wire):
    """A Lean expression; ``pp`` is its pretty-printed text."""

    pp: str | None = None
    sexp: str | None = None
    dependent_mvars: list[str] | None = Field(default=None, alias="dependentMVars")


class Variable(_Wire):
    """A local hypothesis of a goal."""

    name: str = ""
    user_name: str = Field(alias="userName")
    is_inaccessible: bool | None = Field(default=None, alias="isInaccessible")
    type: Expression | None = None
    value: Expression | None = None


class Goal(_Wire):
    """One goal: its hypotheses and target."""

    name: str = ""
    user_name: str | None = Field(default=None, alias="userName")
    fragment: str | None = "tactic"
    target: Expression
    vars: list[Variable] = Field(default_factory=list)

    def render(self) -> str:
        """The goal as Lean prints it: ``h : T`` lines, then ``⊢ target``."""
        return render_goal(self)


def render_goal(goal: Goal) -> str:
    """Render one goal the way Lean does, grouping consecutive variables of one type."""
    lines: list[str] = []
    names: list[str] = []
    current_type: str | None = None
    for var in goal.vars:
        vtype = var.type.pp if var.type is not None and var.type.pp is not None else "?"
        name = var.user_name + ("✝" if var.is_inaccessible and not var.user_name.endswith("✝") else "")
        if var.value is not None and var.value.pp is not None:
            if names:
                lines.append(f"{' '.join(names)} : {current_type}")
                names, current_type = [], None
            lines.append(f"{name} : {vtype} := {var.value.pp}")
            continue
        if names and vtype == current_type:
            names.append(name)
        else:
            if names:
                lines.append(f"{' '.join(names)} : {current_type}")
            names, current_type = [name], vtype
    if names:
        lines.append(f"{' '.join(names)} : {current_type}")
    target = goal.target.pp if goal.target.pp is not None else "?"
    lines.append(f"⊢ {target}")
    text = "\n".join(lines)
    if goal.user_name:
        text = f"case {goal.user_name}\n{text}"
    return text


def render_goals(goals: list[Goal]) -> str:
    """Render a goal list as Lean's infoview does: goals separated by a blank line."""
    if not goals:
        return "no goals"
    return "\n\n".join(render_goal(g) for g in goals)


class Position(_Wire):
    """A source position in a message."""

    line: int
    column: int


class Message(_Wire):
    """A Lean message as ``Lean.SerialMessage`` serialises it (fileName, pos, endPos?,
    keepFullRange, severity, caption, data); severity is error, warning or information."""

    model_config = ConfigDict(frozen=True, populate_by_name=True, extra="allow")

    severity: Literal["error", "warning", "information"] = "error"
    data: str = ""
    file_name: str | None = Field(default=None, alias="fileName")
    pos: Position | None = None
    end_pos: Position | None = Field(default=None, alias="endPos")
    keep_full_range: bool | None = Field(default=None, alias="keepFullRange")
    caption: str | None = None


# ---------------------------------------------------------------- requests


class Request(_Wire):
    """Base of every request; ``cmd`` names the REPL command. Decoding is strict, as
    Lean's ``FromJson``: ``"1"``, ``1.0`` or ``true`` where a Nat is expected are refused."""

    model_config = ConfigDict(frozen=True, populate_by_name=True, extra="ignore", strict=True)

    cmd: ClassVar[str]


class GoalStart(Request):
    """Start a goal state from an expression or from a named constant's type."""

    cmd: ClassVar[str] = "goal.start"
    expr: str | None = None
    copy_from: str | None = Field(default=None, alias="copyFrom")
    levels: list[str] | None = None


class GoalTactic(Request):
    """Run a tactic (or one of the alternative fields) on a goal of a state."""

    cmd: ClassVar[str] = "goal.tactic"
    state_id: int = Field(alias="stateId", ge=0)
    goal_id: int | None = Field(default=None, alias="goalId", ge=0)
    tactic: str | None = None
    mode: str | None = None
    expr: str | None = None
    have: str | None = None
    let: str | None = None
    draft: str | None = None
    auto_resume: bool | None = Field(default=None, alias="autoResume")
    binder_name: str | None = Field(default=None, alias="binderName")


class GoalDelete(Request):
    """Release goal states."""

    cmd: ClassVar[str] = "goal.delete"
    state_ids: list[Annotated[int, Field(ge=0)]] = Field(alias="stateIds")


class GoalPrint(Request):
    """Print a state's root expression, goals and flags."""

    cmd: ClassVar[str] = "goal.print"
    state_id: int = Field(alias="stateId", ge=0)
    root_expr: bool | None = Field(default=None, alias="rootExpr")
    parent_exprs: bool | None = Field(default=None, alias="parentExprs")
    goals: bool | None = None
    extra_mvars: list[str] | None = Field(default=None, alias="extraMVars")


class OptionsSet(Request):
    """Set REPL options (``timeout`` in ms, 0 = off; ``automaticMode``)."""

    cmd: ClassVar[str] = "options.set"
    timeout: int | None = None
    automatic_mode: bool | None = Field(default=None, alias="automaticMode")
    print_json_pretty: bool | None = Field(default=None, alias="printJsonPretty")
    print_expr_pretty: bool | None = Field(default=None, alias="printExprPretty")
    print_expr_ast: bool | None = Field(default=None, alias="printExprAST")
    print_dependent_mvars: bool | None = Field(default=None, alias="printDependentMVars")


class OptionsPrint(Request):
    """Print the REPL's options (Pantograph/Protocol.lean ``OptionsPrint``: no fields)."""

    cmd: ClassVar[str] = "options.print"


class ExprEcho(Request):
    """Elaborate an expression and print it with its type (Pantograph/Protocol.lean ``ExprEcho``)."""

    cmd: ClassVar[str] = "expr.echo"
    expr: str
    type: str | None = None
    levels: list[str] | None = None


class FrontendProcess(Request):
    """Elaborate a whole snippet (commands after the header); with ``sorrys``, each sorry becomes a goal state."""

    cmd: ClassVar[str] = "frontend.process"
    file: str | None = None
    file_name: str | None = Field(default=None, alias="fileName")
    read_header: bool = Field(default=False, alias="readHeader")
    inherit_env: bool = Field(default=False, alias="inheritEnv")
    type_errors_as_goals: bool = Field(default=False, alias="typeErrorsAsGoals")
    sorrys: bool = False
    new_constants: bool = Field(default=False, alias="newConstants")
    invocations: str | None = None


class Stat(Request):
    """Count live goal states."""

    cmd: ClassVar[str] = "stat"


class Reset(Request):
    """Drop every goal state; ids restart at 0."""

    cmd: ClassVar[str] = "reset"


def encode_request(request: Request) -> str:
    """One request line (without the trailing newline), in the payload form."""
    return dump_json({"cmd": request.cmd, "payload": request.wire()})


# ---------------------------------------------------------------- answers


class ReplErrorAnswer(_Wire):
    """``{"error": TYPE, "desc": TEXT}``: the REPL itself refused or failed."""

    error: str
    desc: str

    @property
    def is_interrupt(self) -> bool:
        """True for Lean's own time-out answer ``{"desc":"interrupt","error":"internal"}``."""
        return self.error == "internal" and self.desc == "interrupt"


class GoalStartResult(_Wire):
    """Answer of goal.start."""

    state_id: int = Field(alias="stateId")
    root: str


class GoalTacticResult(_Wire):
    """Answer of goal.tactic: success, failure (messages only) or parse error."""

    next_state_id: int | None = Field(default=None, alias="nextStateId")
    goals: list[Goal] | None = None
    messages: list[Message] | None = None
    has_sorry: bool | None = Field(default=None, alias="hasSorry")
    has_unsafe: bool | None = Field(default=None, alias="hasUnsafe")
    parse_error: str | None = Field(default=None, alias="parseError")

    @model_validator(mode="after")
    def _consistent(self) -> GoalTacticResult:
        if (self.next_state_id is None) != (self.goals is None):
            raise ValueError("nextStateId and goals must come together")
        if self.parse_error is not None and self.next_state_id is not None:
            raise ValueError("parseError excludes nextStateId")
        return self

    @property
    def succeeded(self) -> bool:
        """The tactic ran and produced a new state."""
        return self.next_state_id is not None

    @property
    def error_messages(self) -> list[Message]:
        """Messages of severity error."""
        return [m for m in self.messages or [] if m.severity == "error"]


class GoalDeleteResult(_Wire):
    """Answer of goal.delete: ``{}``."""


class GoalPrintResult(_Wire):
    """Answer of goal.print."""

    root: Expression | None = None
    parent_exprs: list[Expression | None] | None = Field(default=None, alias="parentExprs")
    goals: list[Goal] = Field(default_factory=list)
    extra_mvars: list[Expression] = Field(default_factory=list, alias="extraMVars")
    root_has_sorry: bool = Field(default=False, alias="rootHasSorry")
    root_has_unsafe: bool = Field(default=False, alias="rootHasUnsafe")
    root_has_mvar: bool = Field(default=False, alias="rootHasMVar")


class CompilationUnit(_Wire):
    """One command of a processed snippet: its byte range, messages and (with sorrys) its goal state."""

    boundary: tuple[int, int]
    messages: list[Message] = Field(default_factory=list)
    goal_state_id: int | None = Field(default=None, alias="goalStateId")
    goals: list[Goal] | None = None
    goal_src_boundaries: list[tuple[int, int]] | None = Field(default=None, alias="goalSrcBoundaries")
    n_invocations: int | None = Field(default=None, alias="nInvocations")
    new_constants: list[str] | None = Field(default=None, alias="newConstants")

    @property
    def errors(self) -> list[Message]:
        """Messages of severity error."""
        return [m for m in self.messages if m.severity == "error"]


class FrontendProcessResult(_Wire):
    """Answer of frontend.process: one unit per command of the snippet."""

    units: list[CompilationUnit]


class OptionsSetResult(_Wire):
    """Answer of options.set: ``{}``."""


class OptionsPrintResult(_Wire):
    """Answer of options.print: Pantograph's ``Options`` (Pantograph/Protocol.lean ``structure
    Options``, which ``options_print`` returns whole). A REPL that honours only some options
    (the embedded checker: ``automaticMode`` and ``timeout``) leaves the others out."""

    print_json_pretty: bool | None = Field(default=None, alias="printJsonPretty")
    print_expr_pretty: bool | None = Field(default=None, alias="printExprPretty")
    print_expr_ast: bool | None = Field(default=None, alias="printExprAST")
    print_dependent_mvars: bool | None = Field(default=None, alias="printDependentMVars")
    no_repeat: bool | None = Field(default=None, alias="noRepeat")
    print_aux_decls: bool | None = Field(default=None, alias="printAuxDecls")
    print_implementation_detail_hyps: bool | None = Field(default=None, alias="printImplementationDetailHyps")
    automatic_mode: bool | None = Field(default=None, alias="automaticMode")
    timeout: int | None = None


class ExprEchoResult(_Wire):
    """Answer of expr.echo: the expression and its type, printed."""

    expr: Expression
    type: Expression


class StatResult(_Wire):
    """Answer of stat."""

    n_goals: int = Field(alias="nGoals")


class ResetResult(_Wire):
    """Answer of reset: the count of goal states before the reset."""

    n_goals: int = Field(alias="nGoals")


ANSWER_TYPES: dict[str, type[_Wire]] = {
    GoalStart.cmd: GoalStartResult,
    GoalTactic.cmd: GoalTacticResult,
    GoalDelete.cmd: GoalDeleteResult,
    GoalPrint.cmd: GoalPrintResult,
    OptionsSet.cmd: OptionsSetResult,
    Stat.cmd: StatResult,
    Reset.cmd: ResetResult,
    FrontendProcess.cmd: FrontendProcessResult,
    OptionsPrint.cmd: OptionsPrintResult,
    ExprEcho.cmd: ExprEchoResult,
}

REQUEST_TYPES: dict[str, type[Request]] = {
    model.cmd: model
    for model in (GoalStart, GoalTactic, GoalDelete, GoalPrint, OptionsSet, OptionsPrint, Stat, Reset, ExprEcho, FrontendProcess)
}
"""The request model of each command these models cover, by its ``cmd``."""

Answer = (
    GoalStartResult
    | GoalTacticResult
    | GoalDeleteResult
    | GoalPrintResult
    | OptionsSetResult
    | OptionsPrintResult
    | StatResult
    | ResetResult
    | ExprEchoResult
    | FrontendProcessResult
    | ReplErrorAnswer
)
"""Any answer of the commands modelled here, the REPL's error answer included."""


def decode_answer(request: Request, line: str | bytes) -> _Wire:
    """Parse one answer line for ``request``.

    Raises LeanReplError for an ``{"error", "desc"}`` answer and LeanProtocolError for
    anything that is not a JSON object of the expected shape.
    """
    try:
        obj = json.loads(line)
    except (ValueError, UnicodeDecodeError) as exc:
        preview = line[:200] if isinstance(line, str) else line[:200].decode("utf-8", "replace")
        raise LeanProtocolError(f"answer is not JSON: {preview!r}") from exc
    if not isinstance(obj, dict):
        raise LeanProtocolError(f"answer is not a JSON object: {type(obj).__name__}")
    if "error" in obj:
        try:
            err = ReplErrorAnswer.model_validate(obj)
        except ValidationError as exc:
            raise LeanProtocolError(f"malformed error answer: {obj!r:.200}") from exc
        raise LeanReplError(err.error, err.desc)
    answer_type = ANSWER_TYPES[request.cmd]
    try:
        return answer_type.model_validate(obj)
    except ValidationError as exc:
        raise LeanProtocolError(f"malformed {request.cmd} answer: {exc.errors()[:2]}") from exc
