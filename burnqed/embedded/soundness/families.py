"""Statement families of the soundness campaign aimed at Lean's arithmetic corners (issue 24):
divisibility by divisors whose value is zero (a numeral, ``x * 0``, ``n - n``, a truncated
subtraction cast to ℤ, a variable a hypothesis pins to 0), ``Int.ediv``/``Int.emod`` with
negative operands and divisors, and casts mixed with truncated subtraction, division and
remainder. Each family draws statements from templates with random numerals and relations;
only those the campaign's oracle (``falsified``: exact evaluation) proves false are attacks,
and every attack replays every generic script."""

from __future__ import annotations

import random
from collections.abc import Callable

__all__ = ["FAMILY_TEMPLATES", "family_statements"]

_RELS = ("=", "≠", "<", "≤", ">", "≥")


def _i(v: int) -> str:
    return f"({v})" if v < 0 else str(v)


def _dvd_zero(rng: random.Random) -> str:
    b = rng.choice([v for v in range(-9, 10) if v])
    c = rng.randint(-5, 5)
    zero = rng.choice(("0", "(0 * 7)", "(4 - 4)", "(2 * 3 - 6)"))
    return rng.choice(
        (
            f"({zero} : ℤ) ∣ {_i(b)}",
            f"({zero} : ℕ) ∣ {abs(b)}",
            f"¬ ({zero} : ℤ) ∣ 0",
            f"∀ x : ℤ, x * 0 ∣ {_i(b)}",
            f"∀ x : ℤ, 0 * x ∣ x + {_i(b)}",
            f"∀ n : ℕ, ((n - n : ℕ) : ℤ) ∣ {_i(b)}",
            f"∀ n : ℕ, n - n ∣ {abs(b)}",
            f"∀ m n : ℕ, m ≤ n → ((m - n : ℕ) : ℤ) ∣ {_i(b)}",
            f"∀ m n : ℕ, m ≤ n → (m - n) ∣ {abs(b)}",
            f"∀ x : ℤ, x = 0 → x ∣ {_i(b)}",
            f"∀ x y : ℤ, x = y → x - y ∣ {_i(b)}",
            f"∀ x : ℤ, 0 ∣ x → x = {_i(b)}",
            f"∀ x : ℤ, ¬ 0 ∣ x → x {rng.choice(_RELS)} {_i(c)}",
            f"∀ x : ℤ, (x - x) ∣ x → x {rng.choice(_RELS)} {_i(c)}",
            f"∀ x : ℤ, x % 0 {rng.choice(_RELS)} {_i(c)}",
            f"∀ x : ℤ, x / 0 {rng.choice(_RELS)} {_i(c)}",
            f"∀ x : ℤ, x % (x - x) {rng.choice(_RELS)} x + {_i(c)}",
            f"∀ n : ℕ, n % (n - n) {rng.choice(_RELS)} n + {abs(c)}",
            f"∀ x : ℤ, {_i(b)} ∣ x * 0 + {_i(c)}",
        )
    )


def _ediv_emod(rng: random.Random) -> str:
    a = rng.randint(-12, 12)
    b = rng.choice([v for v in range(-5, 6) if v] + [0])
    # values other semantics give (truncation, floor): the wrong answers worth trying
    trunc = 0 if b == 0 else int(a / b)
    floor = 0 if b == 0 else a // b
    q = rng.choice((trunc, floor, trunc + 1, floor - 1, rng.randint(-6, 6)))
    r = rng.choice((a - b * trunc, a - b * floor, abs(a) % max(abs(b), 1), rng.randint(-5, 5)))
    rel = rng.choice(_RELS)
    return rng.choice(
        (
            f"({_i(a)} : ℤ) / {_i(b)} = {_i(q)}",
            f"({_i(a)} : ℤ) % {_i(b)} = {_i(r)}",
            f"({_i(a)} : ℤ) / {_i(b)} * {_i(b)} + ({_i(a)} : ℤ) % {_i(b)} {rel} {_i(a)}",
            f"∀ x : ℤ, x % {_i(b)} {rel} {_i(r)}",
            f"∀ x : ℤ, x / {_i(b)} * {_i(b)} {rel} x",
            f"∀ x : ℤ, x % {_i(b)} < {abs(b) - 1}",
            f"∀ x : ℤ, x < 0 → x % {_i(b)} {rel} 0",
            f"∀ x : ℤ, x < 0 → x / {_i(b)} {rel} {_i(q)}",
            f"∀ x : ℤ, {_i(a)} / x {rel} {_i(q)}",
            f"∀ x : ℤ, {_i(a)} % x {rel} {_i(r)}",
            f"∀ x y : ℤ, y < 0 → x % y {rel} 0",
            f"∀ x y : ℤ, x % y {rel} x - y * (x / y)",
            f"∀ x : ℤ, -x / {_i(b)} = -(x / {_i(b)})",
            f"∀ x : ℤ, (-x) % {_i(b)} = -(x % {_i(b)})",
        )
    )


def _mixed_casts(rng: random.Random) -> str:
    b = rng.randint(0, 4)
    c = rng.randint(-3, 3)
    rel = rng.choice(_RELS)
    return rng.choice(
        (
            "∀ m n : ℕ, ((m - n : ℕ) : ℤ) = (m : ℤ) - (n : ℤ)",
            f"∀ m n : ℕ, ((m - n : ℕ) : ℤ) {rel} (m : ℤ) - (n : ℤ) + {_i(c)}",
            f"∀ n : ℕ, ((n - {b} : ℕ) : ℤ) + {b} = (n : ℤ)",
            f"∀ n : ℕ, ((n / {b} : ℕ) : ℤ) {rel} (n : ℤ) / {b}",
            f"∀ n : ℕ, ((n % {b} : ℕ) : ℤ) {rel} (n : ℤ) % {b} + {_i(c)}",
            f"∀ (n : ℕ) (x : ℤ), (n : ℤ) % x {rel} {_i(c)}",
            f"∀ (n : ℕ) (x : ℤ), x < 0 → (n : ℤ) / x {rel} {_i(c)}",
            f"∀ (n : ℕ) (x : ℤ), (n : ℤ) - x {rel} ((n - {b} : ℕ) : ℤ)",
            f"∀ m n : ℕ, (((m - n : ℕ) : ℤ) : ℤ) ∣ (m : ℤ) - n",
            f"∀ (n : ℕ), ((n : ℤ) - {b}) ^ 2 {rel} ((n - {b} : ℕ) : ℤ) ^ 2",
            f"∀ (n : ℕ), ((2 : ℤ) - n) * {_i(c)} {rel} ((2 - n : ℕ) : ℤ) * {_i(c)}",
            f"∀ (x : ℤ) (n : ℕ), x ^ (n + 1) {rel} x ^ n * x + {_i(c)}",
            f"∀ (x : ℤ) (n : ℕ), ({_i(c)} : ℤ) ^ n {rel} {_i(c)} ^ (n + 1)",
        )
    )


FAMILY_TEMPLATES: dict[str, Callable[[random.Random], str]] = {
    "dvd_zero": _dvd_zero,
    "ediv_emod": _ediv_emod,
    "mixed_casts": _mixed_casts,
}


def family_statements(
    name: str, rng: random.Random, count: int, oracle: Callable[[str], bool | None], *, tries: int = 40
) -> list[str]:
    """Up to ``count`` distinct statements of a family that ``oracle`` (the campaign's
    ``falsified``) proves false."""
    make = FAMILY_TEMPLATES[name]
    out: dict[str, None] = {}
    for _ in range(count * tries):
        if len(out) >= count:
            break
        s = make(rng)
        if s not in out and oracle(s) is True:
            out[s] = None
    return list(out)
