"""LeanDojo Benchmark 4 files → (state, tactic) pairs, written as the JSON Lines the policy's SFT reads."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from burnqed.data.leandojo import LeanDojoError, TacticPair, load_leandojo, normalise_state, write_pairs
from burnqed.lean.protocol import Expression, Goal, Variable, render_goals
from burnqed.policy.sft import load_pairs

AND_GOALS = "case left\np q : Prop\nh : p ∧ q\n⊢ q\n\ncase right\np q : Prop\nh : p ∧ q\n⊢ p"
RIGHT_GOAL = "case right\np q : Prop\nh : p ∧ q\n⊢ p"


def _tac(tactic: str, before: str, after: str) -> dict[str, Any]:
    return {"tactic": tactic, "annotated_tactic": [tactic, []], "state_before": before, "state_after": after}


def _thm(name: str, tactics: list[dict[str, Any]], file_path: str = "Mathlib/Logic/Basic.lean") -> dict[str, Any]:
    return {
        "url": "https://github.com/leanprover-community/mathlib4",
        "commit": "29dcec074de168ac2bf835a77ef68bbe069194c5",
        "file_path": file_path,
        "full_name": name,
        "start": [10, 1],
        "end": [14, 20],
        "traced_tactics": tactics,
    }


# 3 theorems, 9 traced tactics: 6 pairs kept; skipped are a `sorry`, a repeated (state, tactic)
# and a tactic run on "no goals"
THEOREMS = [
    _thm("Nat.add_zero'", [
        _tac("intro n", "⊢ ∀ (n : ℕ), n + 0 = n", "n : ℕ\n⊢ n + 0 = n"),
        _tac("simp", "n : ℕ\n⊢ n + 0 = n", "no goals"),
    ], file_path="Mathlib/Algebra/Group/Basic.lean"),
    _thm("and_swap'", [
        _tac("constructor", "p q : Prop\nh : p ∧ q\n⊢ q ∧ p", AND_GOALS),
        _tac("exact h.2", AND_GOALS, RIGHT_GOAL),
        _tac("sorry", RIGHT_GOAL, "no goals"),
    ]),
    _thm("Nat.le_two", [
        _tac("simp", "n : ℕ\n⊢ n + 0 = n", "no goals"),  # the same pair as in Nat.add_zero'
        _tac("rfl", "no goals", "no goals"),
        _tac("omega", "m : ℕ\r\nh : m < 3  \n⊢ m ≤ 2\n", "no goals"),  # CRLF and trailing blanks
        _tac("exact admissible_of h", "m : ℕ\nh : m < 3\n⊢ m < 4", "no goals"),  # `admit` only inside a name
    ]),
]
KEPT = [
    ("⊢ ∀ (n : ℕ), n + 0 = n", "intro n"),
    ("n : ℕ\n⊢ n + 0 = n", "simp"),
    ("p q : Prop\nh : p ∧ q\n⊢ q ∧ p", "constructor"),
    (AND_GOALS, "exact h.2"),
    ("m : ℕ\nh : m < 3\n⊢ m ≤ 2", "omega"),
    ("m : ℕ\nh : m < 3\n⊢ m < 4", "exact admissible_of h"),
]


def _write_json(path: Path, value: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, ensure_ascii=False, indent=1), encoding="utf-8")
    return path


@pytest.fixture
def train_json(tmp_path: Path) -> Path:
    return _write_json(tmp_path / "leandojo_benchmark_4" / "random" / "train.json", THEOREMS)


def test_load_keeps_real_tactics_and_skips_sorry_no_goals_and_duplicates(train_json: Path) -> None:
    pairs = load_leandojo(train_json)
    assert [(p.state, p.tactic) for p in pairs] == KEPT
    assert all(p.source == "leandojo" for p in pairs)
    assert [p.theorem for p in pairs] == ["Nat.add_zero'"] * 2 + ["and_swap'"] * 2 + ["Nat.le_two"] * 2
    assert pairs[0].file_path == "Mathlib/Algebra/Group/Basic.lean"
    assert pairs[0].state_after == "n : ℕ\n⊢ n + 0 = n" and pairs[3].state_after == RIGHT_GOAL
    with pytest.raises(ValueError):  # frozen
        pairs[0].tactic = "rfl"  # type: ignore[misc]


@pytest.mark.parametrize("tactic", ["sorry", "· sorry", "exact sorry", "admit", "constructor <;> admit"])
def test_every_sorry_or_admit_tactic_is_skipped(tmp_path: Path, tactic: str) -> None:
    tactics = [_tac(tactic, "⊢ True", "no goals"), _tac("trivial", "⊢ True", "no goals")]
    path = _write_json(tmp_path / "t.json", [_thm("x", tactics)])
    assert [p.tactic for p in load_leandojo(path)] == ["trivial"]


def test_states_are_normalised_to_burnqed_rendering() -> None:
    # what burnqed's Lean layer renders for the two goals after `constructor`
    hyps = [Variable(userName="p", type=Expression(pp="Prop")), Variable(userName="q", type=Expression(pp="Prop")),
            Variable(userName="h", type=Expression(pp="p ∧ q"))]
    goals = [Goal(userName="left", target=Expression(pp="q"), vars=hyps),
             Goal(userName="right", target=Expression(pp="p"), vars=hyps)]
    assert render_goals(goals) == AND_GOALS
    assert normalise_state(AND_GOALS) == AND_GOALS  # LeanDojo's text is already that shape
    # whitespace variants and a Lean 3 style header normalise to it
    messy = "2 goals\r\n" + AND_GOALS.replace("\n\n", "  \n\n\n").replace("⊢ q", "⊢ q  ") + "\n"
    assert normalise_state(messy) == AND_GOALS
    assert normalise_state("\n\nx : ℕ\n⊢ x = x\n\n") == "x : ℕ\n⊢ x = x"


def test_written_pairs_load_unchanged_through_sft_load_pairs(train_json: Path, tmp_path: Path) -> None:
    pairs = load_leandojo(train_json)
    out = tmp_path / "out" / "pairs.jsonl"
    assert write_pairs(out, pairs) == len(KEPT)
    assert load_pairs(out) == KEPT
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert set(rows[0]) == {"state", "tactic", "state_after", "source", "theorem"}
    assert rows[3] == {"state": AND_GOALS, "tactic": "exact h.2", "state_after": RIGHT_GOAL,
                       "source": "leandojo", "theorem": "and_swap'"}
    assert [p.name for p in out.parent.iterdir()] == ["pairs.jsonl"]  # no temp file left behind
    write_pairs(out, pairs[:1])  # replaced whole
    assert load_pairs(out) == KEPT[:1]


def test_write_pairs_refuses_a_name_load_pairs_would_read_as_parquet(tmp_path: Path) -> None:
    pair = TacticPair(state="⊢ True", tactic="trivial", state_after="no goals", theorem="t", file_path="F.lean")
    with pytest.raises(LeanDojoError, match=r"\.jsonl"):
        write_pairs(tmp_path / "pairs.json", [pair])
    assert not (tmp_path / "pairs.json").exists()


def test_json_lines_records_load_like_the_array(tmp_path: Path, train_json: Path) -> None:
    lines = tmp_path / "train.jsonl"
    lines.write_text("\n".join(json.dumps(t, ensure_ascii=False) for t in THEOREMS) + "\n\n", encoding="utf-8")
    assert load_leandojo(lines) == load_leandojo(train_json)


def test_limit_caps_the_pairs(train_json: Path) -> None:
    assert [(p.state, p.tactic) for p in load_leandojo(train_json, limit=3)] == KEPT[:3]
    assert load_leandojo(train_json, limit=0) == []
    with pytest.raises(LeanDojoError):
        load_leandojo(train_json, limit=-1)


def test_a_directory_and_split_choose_the_file(tmp_path: Path) -> None:
    root = tmp_path / "leandojo_benchmark_4"
    _write_json(root / "random" / "train.json", [_thm("train_thm", [_tac("simp", "⊢ a", "no goals")])])
    _write_json(root / "random" / "val.json", [_thm("val_thm", [_tac("simp", "⊢ b", "no goals")])])
    _write_json(root / "novel_premises" / "test.json", [_thm("np_test_thm", [_tac("simp", "⊢ c", "no goals")])])
    _write_json(root / "metadata.json", {"from_repo": {}})

    def names(*args: Any, **kwargs: Any) -> list[str]:
        return [p.theorem for p in load_leandojo(*args, **kwargs)]

    assert names(root / "random") == ["train_thm"]  # split defaults to train
    assert names(root / "random", split="val") == ["val_thm"]
    assert names(root, split="novel_premises/test") == ["np_test_thm"]
    assert names(str(root), split="random/val") == ["val_thm"]
    with pytest.raises(LeanDojoError, match="random/train") as info:  # the root needs random/… or novel_premises/…
        load_leandojo(root)
    assert "metadata" not in str(info.value)
    with pytest.raises(LeanDojoError, match="split"):
        load_leandojo(root, split="../random/train")
    with pytest.raises(LeanDojoError, match="no test.json"):
        load_leandojo(root / "random", split="test")
    with pytest.raises(LeanDojoError, match="is a file"):
        load_leandojo(root / "random" / "train.json", split="val")
    with pytest.raises(LeanDojoError, match="no such file"):
        load_leandojo(root / "missing.json")


def _bad_records(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    good = _thm("good", [_tac("simp", "⊢ a", "no goals")])
    cases: dict[str, tuple[str, str]] = {
        "not_json": ('[{"full_name": "x", ', r"t\.json: not JSON"),
        "jsonl_line_not_json": (json.dumps(good) + "\n{oops\n", r"t\.json:2: record 1: not JSON"),
        "missing_traced_tactics": (
            json.dumps([good, {k: v for k, v in _thm("no_tactics", []).items() if k != "traced_tactics"}]),
            r"record 1 \(no_tactics\): traced_tactics: Field required",
        ),
        "tactic_not_a_string": (
            json.dumps([good, good, _thm("bad_type", [good["traced_tactics"][0], {**_tac("x", "⊢ a", ""), "tactic": 7}])]),
            r"record 2 \(bad_type\): traced_tactics\.1\.tactic: Input should be a valid string",
        ),
        "traced_tactics_not_a_list": (
            json.dumps([{**good, "traced_tactics": {"tactic": "simp"}}]),
            r"record 0 \(good\): traced_tactics: Input should be a valid list",
        ),
        "record_not_an_object": (json.dumps([good, "Nat.foo"]), r"record 1: expected a theorem object, got str"),
        "jsonl_record_with_bad_field": (
            '{"full_name": 3}', r"t\.json:1: record 0: full_name: Input should be a valid string"
        ),
        "empty": ("  \n", r"t\.json: empty file"),
    }
    out = {}
    for name, (text, pattern) in cases.items():
        path = tmp_path / name / "t.json"
        path.parent.mkdir()
        path.write_text(text, encoding="utf-8")
        out[name] = (path, pattern)
    return out


@pytest.mark.parametrize(
    "case",
    ["not_json", "jsonl_line_not_json", "missing_traced_tactics", "tactic_not_a_string",
     "traced_tactics_not_a_list", "record_not_an_object", "jsonl_record_with_bad_field", "empty"],
)
def test_malformed_input_is_a_leandojo_error_naming_file_and_record(tmp_path: Path, case: str) -> None:
    path, pattern = _bad_records(tmp_path)[case]
    with pytest.raises(LeanDojoError, match=pattern) as info:
        load_leandojo(path)
    assert str(path) in str(info.value)
    assert isinstance(info.value, ValueError)
