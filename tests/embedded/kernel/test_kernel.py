"""The independent kernel: every rule accepts its valid instance and refuses forged ones;
Lean's arithmetic; certificates are checked exactly; the kernel imports nothing of ours."""

from __future__ import annotations

import ast
from fractions import Fraction
from pathlib import Path

import pytest

from burnqed.embedded import kernel as k
from burnqed.embedded.kernel import App, Bind, Entry, Free, KernelError, Lit, Proof, Sequent, Var

NAT, INT, PROP = "Nat", "Int", "Prop"
FALSE = App("False", (), PROP)
TRUE = App("True", (), PROP)


def n(v: int, s: str = NAT) -> Lit:
    return Lit(v, s)


def rel(op: str, a: k.Term, b: k.Term) -> App:
    return App(op, (a, b), PROP)


def op(o: str, a: k.Term, b: k.Term, s: str = NAT) -> App:
    return App(o, (a, b), s)


def conn(o: str, a: k.Term, b: k.Term) -> App:
    return App(o, (a, b), PROP)


def neg(a: k.Term) -> App:
    return conn("→", a, FALSE)


def accepts(seq: Sequent, proof: Proof) -> list[tuple[object, Sequent]]:
    out: list[tuple[object, Sequent]] = []
    k.check(seq, proof, out)
    return out


def refuses(seq: Sequent, proof: Proof) -> None:
    with pytest.raises(KernelError):
        accepts(seq, proof)


# ---------------------------------------------------------------- independence


KERNEL_FILES = sorted(Path(k.__file__).parent.glob("*.py"))


def test_kernel_imports_only_the_standard_library() -> None:
    assert len(KERNEL_FILES) >= 5
    for path in KERNEL_FILES:
        mods = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                mods |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                mods.add(node.module or "")
        ours = {m for m in mods if m.startswith("burnqed")}
        assert ours <= {f"burnqed.embedded.kernel.{p.stem}" for p in KERNEL_FILES}, path.name
        assert {m.split(".")[0] for m in mods - ours} <= {"__future__", "dataclasses", "fractions", "math", "typing"}


def test_no_float_in_the_kernel() -> None:
    for path in KERNEL_FILES:
        src = path.read_text(encoding="utf-8")
        assert "float(" not in src and "/ 2.0" not in src, path.name


# ---------------------------------------------------------------- terms and binders


def test_de_bruijn_instantiate_cannot_capture() -> None:
    # ∀ b, a = b  with a := (a free value); instantiating the outer binder of
    # ∃ a, ∀ b, a = b with the variable b of the context must not be captured by ∀ b
    body = Bind("∀", NAT, rel("=", Var(1), Var(0)))
    got = k.instantiate(body, Free(7))
    assert got == Bind("∀", NAT, rel("=", Free(7), Var(0)))


def test_alpha_equivalence_is_structural() -> None:
    # ∃ a, ∀ b, a = 0 ∨ b = 5  vs  ∃ b, ∀ c, c = 0 ∨ c = 5 (cause 2 of the issue)
    left = Bind("∃", NAT, Bind("∀", NAT, conn("∨", rel("=", Var(1), n(0)), rel("=", Var(0), n(5)))))
    right = Bind("∃", NAT, Bind("∀", NAT, conn("∨", rel("=", Var(0), n(0)), rel("=", Var(0), n(5)))))
    seq = Sequent((), conn("→", left, right))
    refuses(seq, k.Intro(1, k.Hyp(1)))
    ok = Sequent((), conn("→", left, left))
    assert accepts(ok, k.Intro(1, k.Hyp(1))) == []


def test_sort_checking_refuses_ill_formed_terms() -> None:
    seq = Sequent((Entry(1, PROP),), TRUE)
    with pytest.raises(KernelError):
        k.sort_of(seq, rel("=", Free(1), n(0)))  # a proposition compared with a number
    with pytest.raises(KernelError):
        k.sort_of(seq, rel("<", n(1, INT), n(1, NAT)))
    with pytest.raises(KernelError):
        k.sort_of(seq, Var(0))
    with pytest.raises(KernelError):
        k.sort_of(seq, Free(99))
    with pytest.raises(KernelError):
        k.sort_of(seq, Lit(-1, NAT))


# ---------------------------------------------------------------- natural deduction


def test_intro_and_hypotheses() -> None:
    p = Free(1)
    seq = Sequent((Entry(1, PROP),), conn("→", p, p))
    assert accepts(seq, k.Intro(2, k.Hyp(2))) == []
    refuses(seq, k.Intro(1, k.Hyp(1)))  # reusing an id of the context
    refuses(seq, k.Hyp(2))
    refuses(Sequent((Entry(1, PROP),), p), k.Hyp(1))  # a variable is not a proof


def test_false_is_not_provable_from_nothing() -> None:
    seq = Sequent((), FALSE)
    for pr in (
        k.TrueIntro(),
        k.Refl(),
        k.Decide(),
        k.Intro(1, k.TrueIntro()),
        k.FalseElim(k.Hyp(1)),
        k.ByContra(1, k.Hyp(1)),
        k.Arith((), ("farkas", ())),
        k.Annot(k.TrueIntro(), FALSE),
    ):
        refuses(seq, pr)


def test_connective_rules() -> None:
    a, b = Free(1), Free(2)
    ctx = (Entry(1, PROP), Entry(2, PROP), Entry(3, conn("∧", a, b)))
    assert accepts(Sequent(ctx, conn("∧", b, a)), k.AndIntro(k.AndRight(k.Hyp(3)), k.AndLeft(k.Hyp(3)))) == []
    refuses(Sequent(ctx, conn("∧", b, a)), k.AndIntro(k.AndLeft(k.Hyp(3)), k.AndRight(k.Hyp(3))))
    assert accepts(Sequent(ctx, conn("∨", b, a)), k.OrInr(k.AndLeft(k.Hyp(3)))) == []
    refuses(Sequent(ctx, conn("∨", b, a)), k.OrInl(k.AndLeft(k.Hyp(3))))
    orctx = (Entry(1, PROP), Entry(2, PROP), Entry(3, conn("∨", a, b)))
    swap = k.OrElim(k.Hyp(3), 4, k.OrInr(k.Hyp(4)), 5, k.OrInl(k.Hyp(5)))
    assert accepts(Sequent(orctx, conn("∨", b, a)), swap) == []
    iff = conn("↔", a, b)
    ictx = (Entry(1, PROP), Entry(2, PROP), Entry(3, iff), Entry(4, a))
    assert accepts(Sequent(ictx, b), k.ModusPonens(k.IffMp(k.Hyp(3)), k.Hyp(4))) == []
    refuses(Sequent(ictx, b), k.ModusPonens(k.IffMpr(k.Hyp(3)), k.Hyp(4)))


def test_quantifier_rules_check_witness_sorts() -> None:
    ex = Bind("∃", NAT, rel("=", op("*", Var(0), Var(0)), n(49)))
    assert accepts(Sequent((), ex), k.ExistsIntro(n(7), k.Refl())) == []
    refuses(Sequent((), ex), k.ExistsIntro(n(6), k.Refl()))
    refuses(Sequent((), ex), k.ExistsIntro(n(7, INT), k.Refl()))
    refuses(Sequent((), ex), k.ExistsIntro(Var(0), k.Refl()))
    all_ = Bind("∀", NAT, rel("≤", n(0), Var(0)))
    ctx = (Entry(1, all_),)
    assert accepts(Sequent(ctx, rel("≤", n(0), n(3))), k.Inst(k.Hyp(1), n(3))) == []
    refuses(Sequent(ctx, rel("≤", n(0), n(4))), k.Inst(k.Hyp(1), n(3)))


def test_exists_elimination_keeps_the_witness_abstract() -> None:
    ex = Bind("∃", NAT, rel("=", Var(0), n(3)))
    seq = Sequent((Entry(1, ex),), Bind("∃", NAT, rel("=", Var(0), n(3))))
    good = k.ExistsElim(k.Hyp(1), 2, 3, k.ExistsIntro(Free(2), k.Hyp(3)))
    assert accepts(seq, good) == []
    # the witness may not escape into a target that is proved about a specific value
    bad = Sequent((Entry(1, ex),), rel("=", n(4), n(3)))
    refuses(bad, k.ExistsElim(k.Hyp(1), 2, 3, k.Hyp(3)))


def test_holes_report_obligations_and_sorry() -> None:
    seq = Sequent((Entry(1, PROP),), conn("→", Free(1), Free(1)))
    out = accepts(seq, k.Intro(2, k.Hole("child")))
    assert [c for c, _ in out] == ["child"]
    assert out[0][1] == Sequent((Entry(1, PROP), Entry(2, Free(1))), Free(1))
    assert accepts(seq, k.Sorry()) == [(-1, seq)]


def test_covers_allows_weakening_only() -> None:
    big = Sequent((Entry(1, PROP), Entry(2, Free(1))), Free(1))
    assert k.covers(big, Sequent((Entry(1, PROP),), Free(1)))
    assert not k.covers(big, Sequent((Entry(1, PROP), Entry(3, Free(1))), Free(1)))
    assert not k.covers(big, Sequent((Entry(1, PROP), Entry(2, TRUE)), Free(1)))
    assert not k.covers(big, Sequent(big.ctx, TRUE))


def test_nat_induction_refuses_a_captured_hypothesis() -> None:
    # ∀ x, x = 0  is false: induction with a hypothesis x = 0 in context must be refused
    x = Free(1)
    ctx = (Entry(1, NAT), Entry(2, rel("=", x, n(0))))
    seq = Sequent(ctx, rel("=", x, n(0)))
    proof = k.NatInd(1, k.Refl(), 3, 4, k.Hyp(2))
    refuses(seq, proof)
    # a true one: 2 * x = x + x by induction
    good = Sequent((Entry(1, NAT),), rel("=", op("*", n(2), x), op("+", x, x)))
    assert accepts(good, k.NatInd(1, k.Ring(), 3, 4, k.Ring())) == []


def test_subst_requires_a_variable_not_in_its_value() -> None:
    x = Free(1)
    loop = (Entry(1, NAT), Entry(2, rel("=", x, op("+", x, n(1)))))
    refuses(Sequent(loop, FALSE), k.Subst(k.Hyp(2), 1, k.Hole("c")))
    ok = (Entry(1, NAT), Entry(2, rel("=", x, n(3))))
    out = accepts(Sequent(ok, rel("<", x, n(5))), k.Subst(k.Hyp(2), 1, k.Decide()))
    assert out == []


def test_rewrite_motive_must_give_the_target() -> None:
    a, b = Free(1), Free(2)
    ctx = (Entry(1, NAT), Entry(2, NAT), Entry(3, rel("=", a, b)))
    target = rel("<", a, op("+", b, n(1)))
    motive = k.abstract(target, a)
    out = accepts(Sequent(ctx, target), k.Rewrite(k.Hyp(3), motive, False, k.Hole("c")))
    assert out[0][1].target == rel("<", b, op("+", b, n(1)))
    refuses(Sequent(ctx, target), k.Rewrite(k.Hyp(3), k.abstract(rel("<", b, b), b), False, k.Hole("c")))


def test_congruence_under_binders_uses_a_fresh_variable() -> None:
    # (∀ y, y = 7) ↔ True must not follow from a rule about a free n
    ctx = (Entry(1, NAT), Entry(2, conn("↔", rel("=", Free(1), n(7)), TRUE)))
    t = conn("↔", Bind("∀", NAT, rel("=", Var(0), n(7))), Bind("∀", NAT, TRUE))
    motive = k.abstract(conn("↔", rel("=", Free(3), n(7)), TRUE), rel("=", Free(1), n(7)))
    refuses(Sequent(ctx, t), k.CongrBind(3, k.Rewrite(k.Hyp(2), motive, False, k.Refl())))


# ---------------------------------------------------------------- arithmetic (Lean's semantics)


@pytest.mark.parametrize(
    ("term", "value"),
    [
        (op("-", n(3), n(5)), 0),
        (op("-", n(3, INT), n(5, INT), INT), -2),
        (op("/", n(7), n(0)), 0),
        (op("%", n(7), n(0)), 7),
        (op("/", n(-7, INT), n(2, INT), INT), -4),
        (op("%", n(-7, INT), n(2, INT), INT), 1),
        (op("/", n(7, INT), n(-2, INT), INT), -3),
        (op("%", n(7, INT), n(-2, INT), INT), 1),
        (op("%", n(-7, INT), n(-2, INT), INT), 1),
        (op("^", n(0), n(0)), 1),
        (op("^", n(2), n(200)), 2**200),
        (op("+", n(10**60), n(1)), 10**60 + 1),
    ],
)
def test_closed_arithmetic_is_leans(term: k.Term, value: int) -> None:
    assert k.poly(term).constant() == value


def test_decide_evaluates_exactly() -> None:
    assert accepts(Sequent((), rel("∣", n(17), n(289))), k.Decide()) == []
    refuses(Sequent((), rel("=", n(3), n(5))), k.Decide())
    refuses(Sequent((), rel("∣", n(0), n(5))), k.Decide())
    refuses(Sequent((Entry(1, NAT),), rel("≤", n(0), Free(1))), k.Decide())
    assert accepts(Sequent((), rel("∣", n(0), n(0))), k.Decide()) == []


def test_ring_normal_forms() -> None:
    x, y = Free(1), Free(2)
    ctx = (Entry(1, INT), Entry(2, INT))
    sq = op("^", op("+", x, y, INT), n(2), INT)
    expanded = op("+", op("+", op("^", x, n(2), INT), op("*", op("*", n(2, INT), x, INT), y, INT), INT), op("^", y, n(2), INT), INT)
    assert accepts(Sequent(ctx, rel("=", sq, expanded)), k.Ring()) == []
    refuses(Sequent(ctx, rel("=", sq, op("+", op("^", x, n(2), INT), op("^", y, n(2), INT), INT))), k.Ring())
    # Nat subtraction is no ring operation: (x - y) + y = x is false on Nat
    nctx = (Entry(1, NAT), Entry(2, NAT))
    refuses(Sequent(nctx, rel("=", op("+", op("-", x, y), y), x)), k.Ring())


def _arith_seq(*facts: k.Term, sorts: tuple[str, ...] = (NAT,)) -> tuple[Sequent, tuple[Proof, ...]]:
    ctx = tuple(Entry(i + 1, s) for i, s in enumerate(sorts))
    ctx += tuple(Entry(100 + i, f) for i, f in enumerate(facts))
    return Sequent(ctx, FALSE), tuple(k.Hyp(100 + i) for i in range(len(facts)))


def test_farkas_certificates_are_checked_exactly() -> None:
    x = Free(1)
    seq, hyps = _arith_seq(rel("<", x, n(3)), rel("<", n(5), x))
    # facts: 3 - x - 1 ≥ 0, x ≥ 0 (x is a Nat), x - 5 - 1 ≥ 0: 0 and 2 sum to -4
    assert accepts(seq, k.Arith(hyps, ("farkas", ((0, 1), (2, 1))))) == []
    refuses(seq, k.Arith(hyps, ("farkas", ((0, 1),))))
    refuses(seq, k.Arith(hyps, ("farkas", ((0, 1), (2, -1)))))
    refuses(seq, k.Arith(hyps, ("farkas", ((0, Fraction(1, 2)), (2, 1)))))
    refuses(seq, k.Arith(hyps, ("farkas", ((1, 1), (1, 1)))))
    refuses(seq, k.Arith(hyps, ("farkas", ((7, 1),))))
    refuses(seq, k.Arith(hyps, "unsat"))


def test_integer_reasoning_needs_a_cut_or_tightening() -> None:
    x = Free(1)
    # 2x = 1 has no integer solution: tightening makes the fact False
    seq, hyps = _arith_seq(rel("=", op("*", n(2, INT), x, INT), n(1, INT)), sorts=(INT,))
    assert accepts(seq, k.Arith(hyps, ("false", 0))) == []
    # 2x = 2 has one: no certificate works
    seq2, hyps2 = _arith_seq(rel("=", op("*", n(2, INT), x, INT), n(2, INT)), sorts=(INT,))
    for cert in (("false", 0), ("farkas", ((0, 1),)), ("farkas", ((0, -1),))):
        refuses(seq2, k.Arith(hyps2, cert))


def test_nat_atoms_are_nonnegative_and_subtraction_truncates() -> None:
    x, y = Free(1), Free(2)
    # x - y + y = x is false on Nat (x < y): only the a ≥ b case of the truncation refutes
    ne = neg(rel("=", op("+", op("-", x, y), y), x))
    seq, hyps = _arith_seq(ne, sorts=(NAT, NAT))
    fs = k.FactSet(seq)
    fs.add(k.nnf(ne, True, seq))
    assert any(isinstance(f, k.Disj) for f in fs.facts)
    from burnqed.embedded.decide.certify import refutation

    assert refutation(seq, [ne]) is None


def test_split_and_cut_certificates() -> None:
    from burnqed.embedded.decide.certify import refutation

    x = Free(1)
    # x % 2 = 0 ∨ x % 2 = 1 is true: its negation is refuted
    claim = conn("∨", rel("=", op("%", x, n(2)), n(0)), rel("=", op("%", x, n(2)), n(1)))
    seq, hyps = _arith_seq(neg(claim))
    cert = refutation(seq, [neg(claim)])
    assert cert is not None
    assert accepts(seq, k.Arith(hyps, cert)) == []
    # x % 3 < 2 is false (x = 2): no certificate
    seq2, _ = _arith_seq(neg(rel("<", op("%", x, n(3)), n(2))))
    assert refutation(seq2, [neg(rel("<", op("%", x, n(3)), n(2)))]) is None


def test_a_certificate_for_other_facts_does_not_transfer() -> None:
    from burnqed.embedded.decide.certify import refutation

    x = Free(1)
    seq, hyps = _arith_seq(rel("<", x, n(3)), rel("<", n(5), x))
    cert = refutation(seq, [rel("<", x, n(3)), rel("<", n(5), x)])
    assert cert is not None
    seq2, hyps2 = _arith_seq(rel("<", x, n(7)), rel("<", n(5), x))
    refuses(seq2, k.Arith(hyps2, cert))


def test_nonlinear_products_and_squares() -> None:
    from burnqed.embedded.decide.certify import refutation

    x = Free(1)
    sq_neg = rel("<", op("^", x, n(2), INT), n(0, INT))
    seq, hyps = _arith_seq(sq_neg, sorts=(INT,))
    cert = refutation(seq, [sq_neg], nonlinear=True)
    assert cert is not None and cert[0] == "square"
    assert accepts(seq, k.Arith(hyps, cert)) == []
    refuses(seq, k.Arith(hyps, ("farkas", ((0, 1),))))


def test_every_builtin_lemma_has_a_kernel_proof() -> None:
    from burnqed.embedded.bridge.translate import kterm
    from burnqed.embedded.bridge.lemma_proofs import lemma_proof
    from burnqed.embedded.elab.lemmas import LEMMAS, lemma_instances

    missing = [name for name in LEMMAS for t in lemma_instances(name) if lemma_proof(kterm(t)) is None]
    assert missing == []
