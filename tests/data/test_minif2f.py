"""The field's benchmark format: import, lock hashes over headers, and a sample proved end to end.

The sample (tests/data/fixtures/minif2f-sample.jsonl) is a dozen hand-written lines in the
JSONL format DeepSeek-Prover, Goedel-Prover and Kimina ship miniF2F in, with their header:
eight in the embedded fragment (ℕ, ℤ) and four outside it (ℝ, Real.sqrt, ∑ over Finset).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from burnqed.cli import main
from burnqed.data.theorems import TheoremSetError, load_theorems

SAMPLE = Path(__file__).parent / "fixtures" / "minif2f-sample.jsonl"
OUTSIDE = {"mathd_algebra_10", "mathd_algebra_11", "mathd_numbertheory_12", "mathd_algebra_13"}


def test_the_sample_imports_with_headers_splits_and_informal_text() -> None:
    theorems = load_theorems(SAMPLE)
    assert len(theorems) == 12
    first = theorems[0]
    assert first.statement.startswith("theorem mathd_numbertheory_3 (x : ℕ) (h₀ : x = 3) : x % 3 = 0 := by")
    assert first.header is not None and first.header.startswith("import Mathlib\nimport Aesop")
    assert first.informal == "If x = 3, what is x mod 3?" and first.split == "test"
    assert [t.name for t in load_theorems(SAMPLE, split="valid")] == ["mathd_algebra_9", "mathd_algebra_13"]
    with pytest.raises(TheoremSetError, match="no theorem of split 'train'"):
        load_theorems(SAMPLE, split="train")


def test_the_lock_hash_covers_the_header() -> None:
    thm = load_theorems(SAMPLE)[0]
    assert thm.sha != thm.model_copy(update={"header": None}).sha
    assert thm.sha != thm.model_copy(update={"header": thm.header.replace("open BigOperators", "open")}).sha
    assert thm.sha == thm.model_copy(update={"statement": thm.statement.replace(" : ", "  :  ")}).sha


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("not json", "not JSON"),
        ('{"name": "a", "split": "test"}', "formal_statement"),
        ('{"formal_statement": "theorem a : 1 = 1 := by"}', "name"),
        ('{"name": "a", "formal_statement": "theorem a : 1 = 1 := by rfl"}', "must not carry a proof"),
        ('{"name": "a", "formal_statement": "def a : Nat := 1"}', "is a `def`"),
        ('{"name": "a", "formal_statement": "theorem a : 1 = 1 := by", "header": "axiom x : False"}', "not allowed"),
        ('{"name": "a", "formal_statement": "theorem a : 1 = 1 := by", "header": 7}', "header"),
    ],
)
def test_malformed_lines_are_refused_naming_the_line(tmp_path: Path, line: str, why: str) -> None:
    path = tmp_path / "bad.jsonl"
    good = SAMPLE.read_text(encoding="utf-8").splitlines()[0]
    path.write_text(f"{good}\n\n{line}\n", encoding="utf-8")
    with pytest.raises(TheoremSetError, match=rf"bad.jsonl:3: .*{why}"):
        load_theorems(path)


def test_duplicate_names_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "dup.jsonl"
    first = SAMPLE.read_text(encoding="utf-8").splitlines()[0]
    path.write_text(f"{first}\n{first}\n", encoding="utf-8")
    with pytest.raises(TheoremSetError, match="dup.jsonl:2: duplicate"):
        load_theorems(path)


def test_data_import_writes_one_split(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "minif2f-test.jsonl"
    assert main(["data", "import", str(SAMPLE), "--format", "minif2f", "--split", "test", "--out", str(out)]) == 0
    assert "wrote 10 theorems (test 10; 1 distinct header(s))" in capsys.readouterr().out
    theorems = load_theorems(out)
    assert len(theorems) == 10 and all(t.header and t.split == "test" for t in theorems)
    assert main(["data", "import", str(SAMPLE), "--format", "minif2f", "--out", str(out)]) == 2  # no --force


def test_the_sample_proves_end_to_end_on_the_embedded_backend(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report_path = tmp_path / "r.json"
    # one embedded worker: the seven in-fragment statements close in a node each, and every worker
    # started pays the checker's start-up (two cores: four workers cost twice the CPU, no wall time)
    code = main(["eval", "--theorems", str(SAMPLE), "--split", "test", "--policy", "none",
                 "--output", str(report_path), "--set", "lean.num_workers=1"])  # fmt: skip
    assert code == 0
    report = json.loads(report_path.read_text(encoding="utf-8"))
    outcomes = {o["name"]: o for o in report["outcomes"]}
    assert report["total"] == 10 and report["outside_fragment"] == 3
    assert {n for n, o in outcomes.items() if o["reason"] == "outside_fragment"} == OUTSIDE - {"mathd_algebra_13"}
    proved = {n for n, o in outcomes.items() if o["proved"]}
    assert proved == set(outcomes) - OUTSIDE, report
    assert report["in_fragment_solve_rate"] == 1.0
    assert "in-fragment: solved 7/7" in capsys.readouterr().out
    # one proof file per proved theorem, each passing the final check against its lock
    files = sorted((tmp_path / "r-proofs").glob("*.lean"))
    assert {f.stem for f in files} == proved
    for file in files:
        assert file.read_text(encoding="utf-8").startswith("import Mathlib\nimport Aesop\n")
    capsys.readouterr()
    # every file at once, on one worker: a verdict line each
    assert main(["verify-file", *map(str, files), "--theorems", str(SAMPLE)]) == 0
    assert capsys.readouterr().out.splitlines() == [f"{f}: ok (checked by kernel)" for f in files]
    tampered = tmp_path / "tampered.lean"
    tampered.write_text(files[0].read_text(encoding="utf-8").replace("open BigOperators ", "open "), encoding="utf-8")
    assert main(["verify-file", str(tampered), "--theorems", str(SAMPLE), "--name", files[0].stem]) == 1
    assert "header changed" in capsys.readouterr().out


HEADER = "import Mathlib\nimport Aesop\n\nset_option maxHeartbeats 0\n\nopen BigOperators Real Nat Topology Rat\n\n"


def _line(**fields: object) -> str:
    return json.dumps(fields, ensure_ascii=False)


def test_a_header_inside_formal_statement_is_read(tmp_path: Path) -> None:
    """Issue 26: Goedel-Prover-V2's minif2f.jsonl has no `header` field; the header opens formal_statement."""
    path = tmp_path / "goedel.jsonl"
    statement = HEADER + "/-- Show that 7 divides 14. -/\ntheorem t7 (x : ℕ) (h : x = 14) : 7 ∣ x := by\n"
    path.write_text(_line(name="t7", split="test", formal_statement=statement) + "\n", encoding="utf-8")
    (thm,) = load_theorems(path)
    assert thm.statement == "theorem t7 (x : ℕ) (h : x = 14) : 7 ∣ x := by"
    assert thm.header == "import Mathlib\nimport Aesop\n\nset_option maxHeartbeats 0\nopen BigOperators Real Nat Topology Rat"
    both = _line(name="t8", formal_statement=statement, header=HEADER)
    path.write_text(both + "\n", encoding="utf-8")
    with pytest.raises(TheoremSetError, match="header both"):
        load_theorems(path)


PROOFNET_STYLE = [
    # a definition in the header, over two lines: imported
    _line(name="e1", split="test", formal_statement="theorem e1 (X : Type*) (T : Set (Set X)) (h : is_top X T) :\n  univ ∈ T :=",
          header="import Mathlib\n\nopen Set\n\ndef is_top (X : Type*) (T : Set (Set X)) :=\n  univ ∈ T ∧ ∅ ∈ T\n\n"),
    # the statement is a def (data): skipped
    _line(name="e2", split="test", formal_statement="def e2 (G : Type*) [Group G] (h : ∀ a b : G, a * b = b * a) :\n  CommGroup G :=",
          header="import Mathlib\n"),
    # an option ProofNet sets: imported
    _line(name="e3", split="valid", formal_statement="theorem e3 {X : Type*} (s : Set X) : s ⊆ s :=",
          header="import Mathlib\n\nset_option checkBinderAnnotations false\n"),
    # the same name again (another textbook's exercise): imported under a new name
    _line(name="e1", split="valid", formal_statement="theorem e1 (n : ℕ) : n ≤ n + 1 :=", header="import Mathlib\n"),
    # an axiom in the header: skipped
    _line(name="e5", split="test", formal_statement="theorem e5 : False :=", header="import Mathlib\naxiom cheat : False\n"),
]  # fmt: skip


def test_import_takes_what_it_can_and_names_each_skipped_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 26: one bad line aborted the whole import; now it is skipped and named, and --strict refuses."""
    src = tmp_path / "proofnet.jsonl"
    src.write_text("\n".join(PROOFNET_STYLE) + "\n", encoding="utf-8")
    out = tmp_path / "set.jsonl"
    assert main(["data", "import", str(src), "--format", "minif2f", "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert "wrote 3 theorems" in captured.out and "skipped 2 line(s)" in captured.out
    assert "proofnet.jsonl:2: e2: the statement is a `def`" in captured.err
    assert "proofnet.jsonl:5: e5: header: `axiom cheat : False` is not allowed" in captured.err
    assert "renamed" in captured.err and "'e1~2'" in captured.err
    theorems = {t.name: t for t in load_theorems(out)}
    assert sorted(theorems) == ["e1", "e1~2", "e3"]
    assert theorems["e1"].header is not None and "def is_top" in theorems["e1"].header
    strict = tmp_path / "strict.jsonl"
    assert main(["data", "import", str(src), "--format", "minif2f", "--out", str(strict), "--strict"]) == 1
    assert "proofnet.jsonl:2" in capsys.readouterr().err and not strict.exists()


def test_a_leandojo_file_given_as_a_theorem_set_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 26: `eval --theorems` on LeanDojo data said only what pydantic saw; now it says what the file is."""
    record = {"url": "u", "commit": "c", "file_path": "Mathlib/X.lean", "full_name": "Nat.foo", "start": [1, 0],
              "end": [2, 0], "traced_tactics": [{"tactic": "simp", "state_before": "⊢ True", "state_after": "no goals"}]}
    jsonl, array = tmp_path / "train.jsonl", tmp_path / "train.json"
    jsonl.write_text(json.dumps(record) + "\n", encoding="utf-8")
    array.write_text(json.dumps([record], indent=2), encoding="utf-8")
    for path in (jsonl, array):
        with pytest.raises(TheoremSetError, match="LeanDojo traced-tactic data.*--format leandojo"):
            load_theorems(path)
        rc = main(["eval", "--theorems", str(path), "--output", str(tmp_path / "r.json"), "--policy", "none"])
        err = capsys.readouterr().err
        assert rc != 0 and "LeanDojo" in err and "burnqed data import --format leandojo" in err and err.count("\n") == 1
