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
        ('{"name": "a", "formal_statement": "def a : Nat := 1"}', "expected `theorem`"),
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
    code = main(["eval", "--theorems", str(SAMPLE), "--split", "test", "--policy", "none",
                 "--output", str(report_path)])  # fmt: skip
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
        assert main(["verify-file", str(file), "--theorems", str(SAMPLE)]) == 0
    tampered = tmp_path / "tampered.lean"
    tampered.write_text(files[0].read_text(encoding="utf-8").replace("open BigOperators ", "open "), encoding="utf-8")
    assert main(["verify-file", str(tampered), "--theorems", str(SAMPLE), "--name", files[0].stem]) == 1
    assert "header changed" in capsys.readouterr().out
