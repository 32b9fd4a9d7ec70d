"""Built-in named lemmas: the statements ``copyFrom``, ``exact``, ``apply``, ``rw`` and
``simp [...]`` can use. Statements are written in the fragment's own syntax and
elaborated on first use; ``{α}`` marks Mathlib-style generic lemmas, instantiated at
Nat and Int (such lemmas cannot be copied with copyFrom: their Lean type is polymorphic).
"""

from __future__ import annotations

from contextvars import ContextVar
from functools import lru_cache

from burnqed.embedded.elab.elaborate import elab_prop
from burnqed.embedded.syntax.parser import Limits, parse_statement
from burnqed.embedded.elab.expr import Term
from burnqed.embedded.elab.lemmas_field import (
    AT_INT,
    FIELD_INSTANCE_LEMMAS,
    FIELD_LEMMAS,
    FIELD_PROTECTED,
    NO_INSTANCE,
    ONE_WAY,
)

__all__ = [
    "DEFINITIONS",
    "INSTANCE_LEMMAS",
    "LEMMAS",
    "NO_INSTANCE",
    "ONE_WAY",
    "OPENED",
    "PROTECTED",
    "copyable",
    "lemma_instances",
    "resolve",
]

_NAT = "∀ "
LEMMAS: dict[str, str] = {
    # logic
    "trivial": "True",
    "True.intro": "True",
    "And.intro": "∀ {a b : Prop}, a → b → a ∧ b",
    "And.left": "∀ {a b : Prop}, a ∧ b → a",
    "And.right": "∀ {a b : Prop}, a ∧ b → b",
    "And.comm": "∀ {a b : Prop}, a ∧ b ↔ b ∧ a",
    "and_comm": "∀ {a b : Prop}, a ∧ b ↔ b ∧ a",
    "And.symm": "∀ {a b : Prop}, a ∧ b → b ∧ a",
    "Or.inl": "∀ {a b : Prop}, a → a ∨ b",
    "Or.inr": "∀ {a b : Prop}, b → a ∨ b",
    "Or.comm": "∀ {a b : Prop}, a ∨ b ↔ b ∨ a",
    "or_comm": "∀ {a b : Prop}, a ∨ b ↔ b ∨ a",
    "Or.symm": "∀ {a b : Prop}, a ∨ b → b ∨ a",
    "Or.elim": "∀ {a b c : Prop}, a ∨ b → (a → c) → (b → c) → c",
    "Iff.intro": "∀ {a b : Prop}, (a → b) → (b → a) → (a ↔ b)",
    "Iff.refl": "∀ (a : Prop), a ↔ a",
    "Iff.rfl": "∀ {a : Prop}, a ↔ a",
    "Iff.symm": "∀ {a b : Prop}, (a ↔ b) → (b ↔ a)",
    "Iff.mp": "∀ {a b : Prop}, (a ↔ b) → a → b",
    "Iff.mpr": "∀ {a b : Prop}, (a ↔ b) → b → a",
    "absurd": "∀ {a b : Prop}, a → ¬a → b",
    "False.elim": "∀ {a : Prop}, False → a",
    "id": "∀ {a : Prop}, a → a",
    "not_not": "∀ {a : Prop}, ¬¬a ↔ a",
    "Classical.not_not": "∀ {a : Prop}, ¬¬a ↔ a",
    "not_not_intro": "∀ {a : Prop}, a → ¬¬a",
    "mt": "∀ {a b : Prop}, (a → b) → ¬b → ¬a",
    "Classical.em": "∀ (p : Prop), p ∨ ¬p",
    "em": "∀ (p : Prop), p ∨ ¬p",
    # Nat (Lean core)
    "Nat.add_zero": "∀ (n : Nat), n + 0 = n",
    "Nat.zero_add": "∀ (n : Nat), 0 + n = n",
    "Nat.add_comm": "∀ (n m : Nat), n + m = m + n",
    "Nat.add_assoc": "∀ (n m k : Nat), n + m + k = n + (m + k)",
    "Nat.mul_comm": "∀ (n m : Nat), n * m = m * n",
    "Nat.mul_assoc": "∀ (n m k : Nat), n * m * k = n * (m * k)",
    "Nat.mul_one": "∀ (n : Nat), n * 1 = n",
    "Nat.one_mul": "∀ (n : Nat), 1 * n = n",
    "Nat.mul_zero": "∀ (n : Nat), n * 0 = 0",
    "Nat.zero_mul": "∀ (n : Nat), 0 * n = 0",
    "Nat.left_distrib": "∀ (n m k : Nat), n * (m + k) = n * m + n * k",
    "Nat.mul_add": "∀ (n m k : Nat), n * (m + k) = n * m + n * k",
    "Nat.right_distrib": "∀ (n m k : Nat), (n + m) * k = n * k + m * k",
    "Nat.add_mul": "∀ (n m k : Nat), (n + m) * k = n * k + m * k",
    "Nat.two_mul": "∀ (n : Nat), 2 * n = n + n",
    "Nat.pow_two": "∀ (n : Nat), n ^ 2 = n * n",
    "Nat.pow_le_pow_left": "∀ {m n : Nat}, m ≤ n → ∀ (i : Nat), m ^ i ≤ n ^ i",
    "Nat.pow_le_pow_of_le_left": "∀ {m n : Nat}, m ≤ n → ∀ (i : Nat), m ^ i ≤ n ^ i",
    "Nat.succ_ne_zero": "∀ (n : Nat), n + 1 ≠ 0",
    "Nat.succ_pos": "∀ (n : Nat), 0 < n + 1",
    "Nat.zero_lt_succ": "∀ (n : Nat), 0 < n + 1",
    "Nat.lt_succ_self": "∀ (n : Nat), n < n + 1",
    "Nat.le_refl": "∀ (n : Nat), n ≤ n",
    "Nat.le.refl": "∀ {n : Nat}, n ≤ n",
    "Nat.lt_irrefl": "∀ (n : Nat), ¬n < n",
    "Nat.zero_le": "∀ (n : Nat), 0 ≤ n",
    "Nat.le_add_right": "∀ (n k : Nat), n ≤ n + k",
    "Nat.le_add_left": "∀ (n m : Nat), n ≤ m + n",
    "Nat.le_of_lt": "∀ {n m : Nat}, n < m → n ≤ m",
    "Nat.le_trans": "∀ {n m k : Nat}, n ≤ m → m ≤ k → n ≤ k",
    "Nat.lt_trans": "∀ {n m k : Nat}, n < m → m < k → n < k",
    "Nat.lt_of_lt_of_le": "∀ {n m k : Nat}, n < m → m ≤ k → n < k",
    "Nat.lt_of_le_of_lt": "∀ {n m k : Nat}, n ≤ m → m < k → n < k",
    "Nat.succ_le_of_lt": "∀ {n m : Nat}, n < m → n + 1 ≤ m",
    "Nat.lt_of_succ_le": "∀ {n m : Nat}, n + 1 ≤ m → n < m",
    "Nat.le_antisymm": "∀ {n m : Nat}, n ≤ m → m ≤ n → n = m",
    "Nat.pos_of_ne_zero": "∀ {n : Nat}, n ≠ 0 → 0 < n",
    "Nat.sub_self": "∀ (n : Nat), n - n = 0",
    "Nat.add_sub_cancel": "∀ {n m : Nat}, n + m - m = n",
    "Nat.dvd_refl": "∀ (a : Nat), a ∣ a",
    "Nat.dvd_mul_right": "∀ (a b : Nat), a ∣ a * b",
    "Nat.dvd_mul_left": "∀ (a b : Nat), a ∣ b * a",
    "Nat.dvd_trans": "∀ {a b c : Nat}, a ∣ b → b ∣ c → a ∣ c",
    "Nat.pow_zero": "∀ (b : Nat), b ^ 0 = 1",
    "Nat.pow_succ": "∀ {b n : Nat}, b ^ (n + 1) = b ^ n * b",
    # core's `protected theorem Nat.lt_two_pow_self : n < 2 ^ n` (n implicit). Mathlib's
    # `theorem Nat.lt_two_pow (n : ℕ) : n < 2 ^ n` (Mathlib/Algebra/Order, the version the
    # miniF2F proofs were checked with) takes n explicitly; later releases removed it
    "Nat.lt_two_pow_self": "∀ {n : Nat}, n < 2 ^ n",
    "Nat.lt_two_pow": "∀ (n : Nat), n < 2 ^ n",
    "Nat.lt_pow_self": "∀ {n a : Nat}, 1 < a → n < a ^ n",
    # Int (Lean core)
    "Int.add_comm": "∀ (a b : Int), a + b = b + a",
    "Int.mul_comm": "∀ (a b : Int), a * b = b * a",
    "Int.add_zero": "∀ (a : Int), a + 0 = a",
    "Int.zero_add": "∀ (a : Int), 0 + a = a",
    "Int.sub_self": "∀ (a : Int), a - a = 0",
    "Int.add_assoc": "∀ (a b c : Int), a + b + c = a + (b + c)",
    "Int.mul_assoc": "∀ (a b c : Int), a * b * c = a * (b * c)",
    "Int.le_refl": "∀ (a : Int), a ≤ a",
    # generic (Mathlib style), instantiated at Nat and Int
    "Eq.symm": "∀ {a b : {α}}, a = b → b = a",
    "Eq.trans": "∀ {a b c : {α}}, a = b → b = c → a = c",
    "Ne.symm": "∀ {a b : {α}}, a ≠ b → b ≠ a",
    "add_comm": "∀ (a b : {α}), a + b = b + a",
    "mul_comm": "∀ (a b : {α}), a * b = b * a",
    "add_assoc": "∀ (a b c : {α}), a + b + c = a + (b + c)",
    "mul_assoc": "∀ (a b c : {α}), a * b * c = a * (b * c)",
    "add_zero": "∀ (a : {α}), a + 0 = a",
    "zero_add": "∀ (a : {α}), 0 + a = a",
    "mul_one": "∀ (a : {α}), a * 1 = a",
    "one_mul": "∀ (a : {α}), 1 * a = a",
    "mul_zero": "∀ (a : {α}), a * 0 = 0",
    "zero_mul": "∀ (a : {α}), 0 * a = 0",
    "mul_add": "∀ (a b c : {α}), a * (b + c) = a * b + a * c",
    "add_mul": "∀ (a b c : {α}), (a + b) * c = a * c + b * c",
    "two_mul": "∀ (a : {α}), 2 * a = a + a",
    "pow_two": "∀ (a : {α}), a ^ 2 = a * a",
    "pow_zero": "∀ (a : {α}), a ^ 0 = 1",
    "pow_one": "∀ (a : {α}), a ^ 1 = a",
    "pow_succ": "∀ (a : {α}) (n : Nat), a ^ (n + 1) = a ^ n * a",
    "pow_succ'": "∀ (a : {α}) (n : Nat), a ^ (n + 1) = a * a ^ n",
    "sq": "∀ (a : {α}), a ^ 2 = a * a",
    "le_refl": "∀ (a : {α}), a ≤ a",
    "le_rfl": "∀ {a : {α}}, a ≤ a",
    "lt_irrefl": "∀ (a : {α}), ¬a < a",
    "le_of_lt": "∀ {a b : {α}}, a < b → a ≤ b",
    "le_of_eq": "∀ {a b : {α}}, a = b → a ≤ b",
    "ne_of_gt": "∀ {a b : {α}}, a > b → a ≠ b",
    "ne_of_lt": "∀ {a b : {α}}, a < b → a ≠ b",
    "le_trans": "∀ {a b c : {α}}, a ≤ b → b ≤ c → a ≤ c",
    "lt_trans": "∀ {a b c : {α}}, a < b → b < c → a < c",
    "lt_of_lt_of_le": "∀ {a b c : {α}}, a < b → b ≤ c → a < c",
    "lt_of_le_of_lt": "∀ {a b c : {α}}, a ≤ b → b < c → a < c",
    "le_antisymm": "∀ {a b : {α}}, a ≤ b → b ≤ a → a = b",
    "add_pos": "∀ {a b : {α}}, 0 < a → 0 < b → 0 < a + b",
    "mul_pos": "∀ {a b : {α}}, 0 < a → 0 < b → 0 < a * b",
    "mul_nonneg": "∀ {a b : {α}}, 0 ≤ a → 0 ≤ b → 0 ≤ a * b",
    "add_nonneg": "∀ {a b : {α}}, 0 ≤ a → 0 ≤ b → 0 ≤ a + b",
    "sq_nonneg": "∀ (a : {α}), 0 ≤ a ^ 2",
    "pow_two_nonneg": "∀ (a : {α}), 0 ≤ a ^ 2",
    "mul_self_nonneg": "∀ (a : {α}), 0 ≤ a * a",
    "dvd_refl": "∀ (a : {α}), a ∣ a",
    "dvd_mul_right": "∀ (a b : {α}), a ∣ a * b",
    "dvd_mul_left": "∀ (a b : {α}), a ∣ b * a",
    "dvd_trans": "∀ {a b c : {α}}, a ∣ b → b ∣ c → a ∣ c",
}

# Ring rearrangements (Mathlib/Algebra/Group/Basic.lean mul_left_comm, mul_right_comm,
# add_left_comm, add_right_comm; Mathlib/Algebra/GroupPower/Basic.lean add_sq, add_pow_two):
# the kernel proves each once, like every entry of LEMMAS
LEMMAS.update(
    {
        "mul_left_comm": "∀ (a b c : {α}), a * (b * c) = b * (a * c)",
        "mul_right_comm": "∀ (a b c : {α}), a * b * c = a * c * b",
        "add_left_comm": "∀ (a b c : {α}), a + (b + c) = b + (a + c)",
        "add_right_comm": "∀ (a b c : {α}), a + b + c = a + c + b",
        "Nat.mul_left_comm": "∀ (n m k : Nat), n * (m * k) = m * (n * k)",
        "Nat.add_left_comm": "∀ (n m k : Nat), n + (m + k) = m + (n + k)",
        "Nat.add_right_comm": "∀ (n m k : Nat), n + m + k = n + k + m",
        "Nat.mul_right_comm": "∀ (n m k : Nat), n * m * k = n * k * m",
        "add_sq": "∀ (a b : {α}), (a + b) ^ 2 = a ^ 2 + 2 * a * b + b ^ 2",
        "add_pow_two": "∀ (a b : {α}), (a + b) ^ 2 = a ^ 2 + 2 * a * b + b ^ 2",
        # Mathlib's sub_sq is stated for commutative rings: ℤ only (ℕ's - truncates)
        "Nat.zero_lt_two": "0 < 2",
        "Nat.pow_succ'": "∀ {b n : Nat}, b ^ (n + 1) = b * b ^ n",
        "Nat.zero_lt_one": "0 < 1",
        "Nat.one_lt_two": "1 < 2",
        "Nat.mod_two_eq_zero_or_one": "∀ (n : Nat), n % 2 = 0 ∨ n % 2 = 1",
        "Int.emod_two_eq_zero_or_one": "∀ (n : Int), n % 2 = 0 ∨ n % 2 = 1",
        "sub_sq": "∀ (a b : Int), (a - b) ^ 2 = a ^ 2 - 2 * a * b + b ^ 2",
        "sub_pow_two": "∀ (a b : Int), (a - b) ^ 2 = a ^ 2 - 2 * a * b + b ^ 2",
    }
)

# Issue 37: Mathlib's congruence lemmas (Mathlib/Data/Nat/ModEq.lean at 0107d4f: `variable {m n
# a b c d : ℕ}` line 49, `ModEq.refl` 57, `ModEq.rfl` 59, `ModEq.symm` 66, `ModEq.trans` 70,
# `ModEq.comm` 76; Mathlib/Data/Int/ModEq.lean at 007a904 the same over ℤ, lines 45-71, and
# `ModEq.eq` 73, `modEq_comm` 78), pow_three (Mathlib/Algebra/Group/Defs.lean
# `pow_three (a : M) : a ^ 3 = a * (a * a)`), core's Nat.dvd_add (lean4
# src/Init/Data/Nat/Dvd.lean `protected theorem dvd_add {a b c : Nat} (h₁ : a ∣ b) (h₂ : a ∣ c) :
# a ∣ b + c`) and Nat.succ_le_iff / Nat.lt_succ_iff (`succ m ≤ n ↔ m < n`, `m < succ n ↔ m ≤ n`;
# `succ m` is `m + 1`): the kernel proves each, like every entry of LEMMAS
LEMMAS.update(
    {
        "Nat.ModEq.refl": "∀ {n : Nat} (a : Nat), a ≡ a [MOD n]",
        "Nat.ModEq.rfl": "∀ {n a : Nat}, a ≡ a [MOD n]",
        "Nat.ModEq.symm": "∀ {n a b : Nat}, a ≡ b [MOD n] → b ≡ a [MOD n]",
        "Nat.ModEq.trans": "∀ {n a b c : Nat}, a ≡ b [MOD n] → b ≡ c [MOD n] → a ≡ c [MOD n]",
        "Nat.ModEq.comm": "∀ {n a b : Nat}, a ≡ b [MOD n] ↔ b ≡ a [MOD n]",
        "Int.ModEq.refl": "∀ {n : Int} (a : Int), a ≡ a [ZMOD n]",
        "Int.ModEq.rfl": "∀ {n a : Int}, a ≡ a [ZMOD n]",
        "Int.ModEq.symm": "∀ {n a b : Int}, a ≡ b [ZMOD n] → b ≡ a [ZMOD n]",
        "Int.ModEq.trans": "∀ {n a b c : Int}, a ≡ b [ZMOD n] → b ≡ c [ZMOD n] → a ≡ c [ZMOD n]",
        "Int.ModEq.eq": "∀ {n a b : Int}, a ≡ b [ZMOD n] → a % n = b % n",
        "Int.modEq_comm": "∀ {n a b : Int}, a ≡ b [ZMOD n] ↔ b ≡ a [ZMOD n]",
        "pow_three": "∀ (a : {α}), a ^ 3 = a * (a * a)",
        "Nat.dvd_add": "∀ {a b c : Nat}, a ∣ b → a ∣ c → a ∣ b + c",
        # Mathlib/Algebra/Ring/Divisibility/Basic.lean: `theorem dvd_add [LeftDistribClass α]
        # {a b c : α} (h₁ : a ∣ b) (h₂ : a ∣ c) : a ∣ b + c`
        "dvd_add": "∀ {a b c : {α}}, a ∣ b → a ∣ c → a ∣ b + c",
        "Nat.succ_le_iff": "∀ {m n : Nat}, m + 1 ≤ n ↔ m < n",
        "Nat.lt_succ_iff": "∀ {m n : Nat}, m < n + 1 ↔ m ≤ n",
        # leanprover/lean4 src/Init/Data/Nat/Basic.lean at 01f0fedef8dafd21ec2d8d8fc742d99af4f1372f
        # (after `sub_self_add`; line not counted): `protected theorem sub_eq_zero_of_le {n m : Nat}
        # (h : n ≤ m) : n - m = 0`: the kernel proves it (ℕ's truncated subtraction)
        "Nat.sub_eq_zero_of_le": "∀ {n m : Nat}, n ≤ m → n - m = 0",
        # leanprover/lean4 src/Init/Data/Nat/Dvd.lean at 1393e8e75424be371bbae71c04dd1646716323c0
        # line 66 `theorem le_of_dvd {m n : Nat} (h : 0 < n) : m ∣ n → m ≤ n`: the kernel proves
        # it by unfolding `m ∣ n` and splitting on the witness (lemma_proofs._dvd_cases_proof)
        "Nat.le_of_dvd": "∀ {m n : Nat}, 0 < n → m ∣ n → m ≤ n",
    }
)

# issue 37: the lemma names of the field's provers (elab/lemmas_field.py, each with its source)
LEMMAS.update(FIELD_LEMMAS)

# Division and remainder lemmas whose general statement is beyond the kernel's certificates
# (the divisor, or an exponent, is a variable): such a statement is never proved once and
# trusted. Each use is an instance (the divisor a numeral, as in `% 10`) whose equation the
# kernel proves by an arithmetic certificate in the goal's context (tactics_rewrite
# `_instance_proof`); where no certificate is found the tactic fails. A statement copied
# wrong can therefore only make a rewrite fail, never prove something false. Statements as in
# Lean core (lean4 src/Init/Data/Nat/Basic.lean, src/Init/Data/Nat/Lemmas.lean,
# src/Init/Data/Nat/Dvd.lean, src/Init/Data/Int/DivModLemmas.lean) and Mathlib
# (Mathlib/Algebra/GroupPower/Basic.lean pow_mul).
INSTANCE_LEMMAS: dict[str, str] = {
    "Nat.mod_eq_of_lt": "∀ {a b : Nat}, a < b → a % b = a",
    "Nat.mul_mod": "∀ (a b n : Nat), a * b % n = a % n * (b % n) % n",
    "Nat.add_mod": "∀ (a b n : Nat), (a + b) % n = (a % n + b % n) % n",
    "Nat.pow_mod": "∀ (a b n : Nat), a ^ b % n = (a % n) ^ b % n",
    "Nat.mod_mod": "∀ (a n : Nat), a % n % n = a % n",
    "Nat.mod_self": "∀ (n : Nat), n % n = 0",
    "Nat.div_add_mod": "∀ (m k : Nat), k * (m / k) + m % k = m",
    "Nat.mod_add_div": "∀ (m k : Nat), m % k + k * (m / k) = m",
    "Nat.div_add_mod'": "∀ (m k : Nat), m / k * k + m % k = m",
    "Nat.mod_add_div'": "∀ (m k : Nat), m % k + m / k * k = m",
    "Nat.add_mul_mod_self_left": "∀ (a b n : Nat), (a + b * n) % b = a % b",
    "Nat.add_mul_mod_self_right": "∀ (a b n : Nat), (a + b * n) % n = a % n",
    "Nat.mul_mod_right": "∀ (n k : Nat), n * k % n = 0",
    "Nat.mul_mod_left": "∀ (m n : Nat), m * n % n = 0",
    "Nat.dvd_of_mod_eq_zero": "∀ {k n : Nat}, n % k = 0 → k ∣ n",
    "Nat.mod_eq_zero_of_dvd": "∀ {k n : Nat}, k ∣ n → n % k = 0",
    "Nat.dvd_iff_mod_eq_zero": "∀ {k n : Nat}, k ∣ n ↔ n % k = 0",
    "Int.add_emod": "∀ (a b n : Int), (a + b) % n = (a % n + b % n) % n",
    "Int.sub_emod": "∀ (a b n : Int), (a - b) % n = (a % n - b % n) % n",
    "Int.mul_emod": "∀ (a b n : Int), a * b % n = a % n * (b % n) % n",
    "Int.emod_emod_of_dvd": "∀ (n : Int) {m k : Int}, m ∣ k → n % k % m = n % m",
    "Int.emod_emod": "∀ (a b : Int), a % b % b = a % b",
    "Int.emod_eq_of_lt": "∀ {a b : Int}, 0 ≤ a → a < b → a % b = a",
    "Int.ediv_add_emod": "∀ (a b : Int), b * (a / b) + a % b = a",
    "Int.emod_add_ediv": "∀ (a b : Int), a % b + b * (a / b) = a",
    "Int.dvd_iff_emod_eq_zero": "∀ {a b : Int}, a ∣ b ↔ b % a = 0",
    "Nat.pow_add": "∀ (a m n : Nat), a ^ (m + n) = a ^ m * a ^ n",
    "pow_add": "∀ (a : {α}) (m n : Nat), a ^ (m + n) = a ^ m * a ^ n",
    "Nat.pow_mul": "∀ (a m n : Nat), a ^ (m * n) = (a ^ m) ^ n",
    "mul_pow": "∀ (a b : {α}) (n : Nat), (a * b) ^ n = a ^ n * b ^ n",
    "pow_mul": "∀ (a : {α}) (m n : Nat), a ^ (m * n) = (a ^ m) ^ n",
    # issue 37: congruences whose modulus is a variable (Mathlib/Data/Nat/ModEq.lean at 0107d4f:
    # modEq_zero_iff_dvd, modEq_iff_dvd, modEq_iff_dvd', mod_modEq, ModEq.mul_left, mul_right,
    # mul, pow, add, add_left, add_right, implicit {n a b c d} from line 49's `variable`;
    # Mathlib/Data/Int/ModEq.lean at 007a904: modEq_zero_iff_dvd, modEq_iff_dvd, mod_modEq,
    # ModEq.add, add_left, add_right, sub, mul_left, mul_right, mul, pow)
    "Nat.modEq_zero_iff_dvd": "∀ {n a : Nat}, a ≡ 0 [MOD n] ↔ n ∣ a",
    "Nat.modEq_iff_dvd": "∀ {n a b : Nat}, a ≡ b [MOD n] ↔ (n : Int) ∣ (b : Int) - (a : Int)",
    "Nat.modEq_iff_dvd'": "∀ {n a b : Nat}, a ≤ b → (a ≡ b [MOD n] ↔ n ∣ b - a)",
    "Nat.mod_modEq": "∀ (a n : Nat), a % n ≡ a [MOD n]",
    "Int.modEq_zero_iff_dvd": "∀ {n a : Int}, a ≡ 0 [ZMOD n] ↔ n ∣ a",
    "Int.modEq_iff_dvd": "∀ {n a b : Int}, a ≡ b [ZMOD n] ↔ n ∣ b - a",
    "Int.mod_modEq": "∀ (a n : Int), a % n ≡ a [ZMOD n]",
    "Nat.ModEq.add": "∀ {n a b c d : Nat}, a ≡ b [MOD n] → c ≡ d [MOD n] → a + c ≡ b + d [MOD n]",
    "Nat.ModEq.add_left": "∀ {n a b : Nat} (c : Nat), a ≡ b [MOD n] → c + a ≡ c + b [MOD n]",
    "Nat.ModEq.add_right": "∀ {n a b : Nat} (c : Nat), a ≡ b [MOD n] → a + c ≡ b + c [MOD n]",
    "Nat.ModEq.mul": "∀ {n a b c d : Nat}, a ≡ b [MOD n] → c ≡ d [MOD n] → a * c ≡ b * d [MOD n]",
    "Nat.ModEq.mul_left": "∀ {n a b : Nat} (c : Nat), a ≡ b [MOD n] → c * a ≡ c * b [MOD n]",
    "Nat.ModEq.mul_right": "∀ {n a b : Nat} (c : Nat), a ≡ b [MOD n] → a * c ≡ b * c [MOD n]",
    "Nat.ModEq.pow": "∀ {n a b : Nat} (m : Nat), a ≡ b [MOD n] → a ^ m ≡ b ^ m [MOD n]",
    "Int.ModEq.add": "∀ {n a b c d : Int}, a ≡ b [ZMOD n] → c ≡ d [ZMOD n] → a + c ≡ b + d [ZMOD n]",
    "Int.ModEq.add_left": "∀ {n a b : Int} (c : Int), a ≡ b [ZMOD n] → c + a ≡ c + b [ZMOD n]",
    "Int.ModEq.add_right": "∀ {n a b : Int} (c : Int), a ≡ b [ZMOD n] → a + c ≡ b + c [ZMOD n]",
    "Int.ModEq.sub": "∀ {n a b c d : Int}, a ≡ b [ZMOD n] → c ≡ d [ZMOD n] → a - c ≡ b - d [ZMOD n]",
    "Int.ModEq.mul": "∀ {n a b c d : Int}, a ≡ b [ZMOD n] → c ≡ d [ZMOD n] → a * c ≡ b * d [ZMOD n]",
    "Int.ModEq.mul_left": "∀ {n a b : Int} (c : Int), a ≡ b [ZMOD n] → c * a ≡ c * b [ZMOD n]",
    "Int.ModEq.mul_right": "∀ {n a b : Int} (c : Int), a ≡ b [ZMOD n] → a * c ≡ b * c [ZMOD n]",
    "Int.ModEq.pow": "∀ {n a b : Int} (m : Nat), a ≡ b [ZMOD n] → a ^ m ≡ b ^ m [ZMOD n]",
    # issue 37: ℕ/ℤ division lemmas of prover outputs (lean4 src/Init/Data/Nat/Basic.lean
    # `Nat.div_eq_of_eq_mul_left (H1 : 0 < n) (H2 : m = k * n) : m / n = k`, `…_right`,
    # `Nat.mul_div_cancel (m : Nat) {n : Nat} (H : 0 < n) : m * n / n = m`, `Nat.mul_div_cancel_left`;
    # src/Init/Data/Nat/Dvd.lean `Nat.mul_div_cancel' {n m : Nat} (H : n ∣ m) : n * (m / n) = m`,
    # `Nat.div_mul_cancel {n m : Nat} (H : n ∣ m) : m / n * n = m`, `Nat.dvd_sub {k m n : Nat}
    # (H : n ≤ m) (h₁ : k ∣ m) (h₂ : k ∣ n) : k ∣ m - n`, `Nat.mod_mod_of_dvd (n : Nat)
    # (h : m ∣ k) : n % k % m = n % m`; Mathlib/Algebra/Order/Group/Nat… `Nat.dvd_sub'
    # (h₁ : k ∣ m) (h₂ : k ∣ n) : k ∣ m - n`; src/Init/Data/Int/DivModLemmas.lean
    # `Int.add_mul_emod_self {a b c : Int} : (a + b * c) % c = a % c`, `add_mul_emod_self_left
    # (a b c : Int) : (a + b * c) % b = a % b`)
    "Nat.div_eq_of_eq_mul_left": "∀ {n m k : Nat}, 0 < n → m = k * n → m / n = k",
    "Nat.div_eq_of_eq_mul_right": "∀ {n m k : Nat}, 0 < n → m = n * k → m / n = k",
    "Nat.mul_div_cancel": "∀ (m : Nat) {n : Nat}, 0 < n → m * n / n = m",
    "Nat.mul_div_cancel_left": "∀ (m : Nat) {n : Nat}, 0 < n → n * m / n = m",
    "Nat.mul_div_cancel'": "∀ {n m : Nat}, n ∣ m → n * (m / n) = m",
    "Nat.div_mul_cancel": "∀ {n m : Nat}, n ∣ m → m / n * n = m",
    "Nat.dvd_sub": "∀ {k m n : Nat}, n ≤ m → k ∣ m → k ∣ n → k ∣ m - n",
    "Nat.dvd_sub'": "∀ {k m n : Nat}, k ∣ m → k ∣ n → k ∣ m - n",
    "Nat.mod_mod_of_dvd": "∀ (n : Nat) {m k : Nat}, m ∣ k → n % k % m = n % m",
    "Int.add_mul_emod_self": "∀ {a b c : Int}, (a + b * c) % c = a % c",
    "Int.add_mul_emod_self_left": "∀ (a b c : Int), (a + b * c) % b = a % b",
    # issue 37 (lemma names of prover outputs): leanprover/lean4 src/Init/Data/Nat/Div.lean at
    # 02d7cedba80422a3d0892493fb7518523e22ae0f line 80 `theorem mod_lt (x : Nat) {y : Nat} :
    # y > 0 → x % y < y`. The divisor is a variable in general: each use is proved as its instance
    "Nat.mod_lt": "∀ (x : Nat) {y : Nat}, y > 0 → x % y < y",
}

INSTANCE_LEMMAS.update(FIELD_INSTANCE_LEMMAS)

# Definitions a rule list (`rw [Nat.ModEq]`, `simp [Int.ModEq]`, `norm_num [Nat.ModEq] at h`) or
# `unfold` may name: each as its equation, `∀ n a b, Nat.ModEq n a b ↔ body`, which the kernel
# proves (both sides are one kernel term: the kernel sees every ModEq unfolded). Never a
# proof term: in Lean `Nat.ModEq` is a function to Prop, not a proof (tactics/proofterm.py does not
# look here). Bodies as Mathlib defines them: Mathlib/Data/Nat/ModEq.lean
# (leanprover-community/mathlib4 at 0107d4f, lines 37-38: `def ModEq (n a b : ℕ) := a % n = b % n`,
# line 41 the notation `a ≡ b [MOD n]`) and Mathlib/Data/Int/ModEq.lean (at 007a904, lines
# 34-35: `def ModEq (n a b : ℤ) := a % n = b % n`, line 39 `a ≡ b [ZMOD n]`).
DEFINITIONS: dict[str, str] = {
    "Nat.ModEq": "∀ (n a b : Nat), a ≡ b [MOD n] ↔ a % n = b % n",
    "Int.ModEq": "∀ (n a b : Int), a ≡ b [ZMOD n] ↔ a % n = b % n",
}

# `protected` declarations (lean4 src/Init/Data/Nat/Basic.lean, Dvd.lean: `protected theorem
# Nat.dvd_add`, `Nat.mul_div_cancel'`, …): `open Nat` does not make their last component a
# name, so `resolve` never reaches them through an opened namespace (Lean's name resolution
# skips protected declarations there)
PROTECTED = frozenset(
    {
        "Nat.dvd_add", "Nat.div_eq_of_eq_mul_left", "Nat.div_eq_of_eq_mul_right", "Nat.mul_div_cancel",
        "Nat.mul_div_cancel_left", "Nat.mul_div_cancel'", "Nat.div_mul_cancel", "Nat.sub_eq_zero_of_le",
        *FIELD_PROTECTED,
    }
)


_LIMITS = Limits()


def copyable(name: str) -> bool:
    """Whether goal.start copyFrom can copy this lemma (monomorphic, Lean-core style)."""
    return name in LEMMAS and "{α}" not in LEMMAS[name] and name not in ("trivial",) and name not in AT_INT


@lru_cache(maxsize=512)
def lemma_instances(name: str) -> tuple[Term, ...]:
    """The elaborated statement(s) of a lemma: one, or one per type for a generic lemma."""
    text = LEMMAS.get(name) or INSTANCE_LEMMAS.get(name) or DEFINITIONS.get(name)
    if text is None:
        return ()
    if "{α}" in text:
        return tuple(
            elab_prop(parse_statement(text.replace("{α}", ty), _LIMITS), {})
            for ty in ("Nat", "Int")
        )
    return (elab_prop(parse_statement(text, _LIMITS), {}),)


OPENED: ContextVar[tuple[str, ...]] = ContextVar("burnqed_opened_namespaces", default=())
"""The namespaces the file's ``open`` commands opened so far (set by the frontend)."""


def resolve(name: str) -> str:
    """The catalogue name ``name`` denotes: itself when the catalogue has it, else the first
    ``N.name`` for an opened namespace ``N`` (``open Nat``: ``pow_mod`` is ``Nat.pow_mod``,
    as Lean's name resolution finds it), else ``name``."""
    if name in LEMMAS or name in INSTANCE_LEMMAS or name in DEFINITIONS or name in NO_INSTANCE:
        return name
    for ns in OPENED.get():
        full = f"{ns}.{name}"
        if full in PROTECTED and "." not in name:
            continue
        if full in LEMMAS or full in INSTANCE_LEMMAS or full in DEFINITIONS or full in NO_INSTANCE:
            return full
    return name
