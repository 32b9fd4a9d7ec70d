"""Issue 37: the ℕ/ℤ lemma names the field's provers use, beyond the first catalogue (lemmas.py merges
them into ``LEMMAS``, ``INSTANCE_LEMMAS`` and ``PROTECTED``; the statements are in the fragment's
syntax, each copied from Lean core or Mathlib with its source). ``FIELD_LEMMAS`` the kernel proves in
general; ``FIELD_INSTANCE_LEMMAS`` only per use; ``NO_INSTANCE`` names never apply to ℕ or ℤ."""

from __future__ import annotations

__all__ = ["AT_INT", "FIELD_INSTANCE_LEMMAS", "FIELD_LEMMAS", "FIELD_PROTECTED", "NO_INSTANCE", "ONE_WAY"]

# Issue 37, the lemma names of the field's provers (ℕ/ℤ arithmetic), each proved by the kernel in
# general like every entry of LEMMAS (tests/embedded/kernel/test_kernel.py). Lean core, leanprover/lean4
# src/Init/Data/Nat/Basic.lean at 01f0fedef8dafd21ec2d8d8fc742d99af4f1372f (`succ m` is `m + 1`
# here): `theorem succ_add : ∀ (n m : Nat), (succ n) + m = succ (n + m)`, `theorem add_succ (n m :
# Nat) : n + succ m = succ (n + m)`, `theorem mul_succ (n m : Nat) : n * succ m = n * m + n`,
# `theorem succ_mul (n m : Nat) : (succ n) * m = (n * m) + m`, `theorem sub_le (n m : Nat) : n - m ≤
# n`, `theorem lt_succ_of_le {n m : Nat} : n ≤ m → n < succ m`, `theorem eq_zero_of_le_zero {n :
# Nat} (h : n ≤ 0) : n = 0`, `protected theorem le_total (m n : Nat) : m ≤ n ∨ n ≤ m`, `protected
# theorem lt_or_gt_of_ne {a b : Nat} (ne : a ≠ b) : a < b ∨ a > b`, `protected theorem one_ne_zero
# : 1 ≠ (0 : Nat)`, `theorem add_sub_of_le {a b : Nat} (h : a ≤ b) : a + (b - a) = b`, `@[simp]
# protected theorem sub_add_cancel {n m : Nat} (h : m ≤ n) : n - m + m = n`, `@[simp] protected
# theorem zero_sub (n : Nat) : 0 - n = 0`, `@[simp] protected theorem sub_zero (n : Nat) : n - 0 =
# n`, src/Init/Data/Nat/Basic.lean (Lemmas.lean later) `theorem succ_sub_one (n : Nat) : succ n - 1 =
# n`, `theorem pos_pow_of_pos {n : Nat} (m : Nat) (h : 0 < n) : 0 < n^m`; src/Init/Prelude.lean
# `theorem Nat.le_of_lt_succ {m n : Nat} : LT.lt m (succ n) → LE.le m n`, `theorem Nat.succ_le_succ
# : LE.le n m → LE.le (succ n) (succ m)` ({n m} bound automatically); src/Init/Data/Int/DivModLemmas.lean
# `@[simp] theorem emod_one (a : Int) : a % 1 = 0`; src/Init/Data/Int/DivMod.lean `emod_zero
# (a : Int) : a % 0 = a`; src/Init/Data/Nat/Div.lean `mod_one (a : Nat) : a % 1 = 0`, `mod_zero (a
# : Nat) : a % 0 = a`, `div_one (n : Nat) : n / 1 = n`, `div_zero (n : Nat) : n / 0 = 0`;
# src/Init/Data/Int/Lemmas.lean / DivModLemmas.lean (protected) `Int.dvd_refl (n : Int) : n ∣ n`,
# `Int.dvd_trans : ∀ {a b c : Int}, a ∣ b → b ∣ c → a ∣ c`, `Int.dvd_mul_right (a b : Int) : a ∣ a *
# b`, `Int.dvd_mul_left (a b : Int) : b ∣ a * b`. Mathlib (leanprover-community/mathlib4):
# Mathlib/Algebra/GroupWithZero/Divisibility.lean `dvd_zero (a : α) : a ∣ 0`,
# Mathlib/Algebra/Group/Basic.lean `one_dvd (a : α) : 1 ∣ a`, Mathlib/Algebra/Ring/Defs.lean
# `mul_two (a : α) : a * 2 = a + a`, Mathlib/Order/Defs.lean `le_total : ∀ (a b : α), a ≤ b ∨ b ≤ a`,
# `lt_or_gt_of_ne {a b : α} (h : a ≠ b) : a < b ∨ a > b`; lean4 src/Init/Core.lean `theorem eq_comm
# {a b : α} : a = b ↔ b = a`; src/Init/Prelude.lean `inductive Eq : α → α → Prop | refl (a : α) : Eq a
# a`; src/Init/Data/Nat/Lemmas.lean `@[simp] protected theorem pow_one (a : Nat) : a ^ 1 = a`,
# `@[simp] protected theorem one_pow (n : Nat) : 1 ^ n = 1`; Mathlib/Algebra/Group/Defs.lean
# (Monoid) `theorem one_pow (n : ℕ) : (1 : M) ^ n = 1`; Mathlib/Algebra/Order/Monoid/Lemmas.lean
# (Mathlib/Algebra/Order/Monoid/NatCast.lean later) `lt_add_one (a : α) : a < a + 1`;
# Mathlib/Algebra/Group/Basic.lean (Mathlib/Algebra/GroupWithZero/Divisibility.lean) `theorem
# dvd_mul_of_dvd_left (h : a ∣ b) (c : α) : a ∣ b * c`, `theorem dvd_mul_of_dvd_right (h : a ∣ b) (c
# : α) : a ∣ c * b`. Order, Mathlib/Init/Order/Defs.lean (leanprover-community/mathlib4, the 2023-24
# releases; Mathlib/Order/Defs.lean later), `variable [LinearOrder α]`: `theorem le_of_not_ge {a b :
# α} : ¬a ≥ b → a ≤ b`, `theorem le_of_not_le {a b : α} : ¬a ≤ b → b ≤ a`, `theorem not_lt_of_gt {a b
# : α} (h : a > b) : ¬a < b`, `theorem lt_trichotomy (a b : α) : a < b ∨ a = b ∨ b < a`, `theorem
# le_of_not_lt {a b : α} (h : ¬b < a) : a ≤ b`, `theorem le_of_not_gt {a b : α} : ¬a > b → a ≤ b`,
# `theorem lt_of_not_ge {a b : α} (h : ¬a ≥ b) : a < b`, `theorem lt_or_le (a b : α) : a < b ∨ b ≤
# a`, `theorem le_or_lt (a b : α) : a ≤ b ∨ b < a`, `theorem lt_or_ge : ∀ a b : α, a < b ∨ a ≥ b`,
# `theorem le_or_gt : ∀ a b : α, a ≤ b ∨ a > b`, `theorem lt_iff_not_ge (x y : α) : x < y ↔ ¬x ≥ y`,
# `@[simp] theorem not_lt {a b : α} : ¬a < b ↔ b ≤ a`, `@[simp] theorem not_le {a b : α} : ¬a ≤ b ↔
# b < a`; ([PartialOrder α]) `theorem lt_of_le_of_ne {a b : α} : a ≤ b → a ≠ b → a < b`. Core ℕ,
# src/Init/Data/Nat/Basic.lean at 01f0fed: `theorem add_le_add {a b c d : Nat} (h₁ : a ≤ b) (h₂ : c ≤
# d) : a + c ≤ b + d`, `theorem add_lt_add` (the same with <), `protected theorem add_le_add_left {n
# m : Nat} (h : n ≤ m) (k : Nat) : k + n ≤ k + m`, `protected theorem add_le_add_right {n m : Nat} (h
# : n ≤ m) (k : Nat) : n + k ≤ m + k`, `protected theorem pos_iff_ne_zero : 0 < n ↔ n ≠ 0`, `@[simp]
# protected theorem not_le {a b : Nat} : ¬ a ≤ b ↔ b < a`, `@[simp] protected theorem not_lt {a b :
# Nat} : ¬ a < b ↔ b ≤ a`, `protected theorem lt_trichotomy (a b : Nat)`, `protected theorem
# le_antisymm_iff {a b : Nat} : a = b ↔ a ≤ b ∧ b ≤ a`, `protected theorem lt_iff_le_and_ne {m n :
# Nat} : m < n ↔ m ≤ n ∧ m ≠ n`, `theorem sub_lt : ∀ {n m : Nat}, 0 < n → 0 < m → n - m < n`,
# `theorem mul_le_mul_left {n m : Nat} (k : Nat) (h : n ≤ m) : k * n ≤ k * m`, `theorem
# mul_le_mul_right {n m : Nat} (k : Nat) (h : n ≤ m) : n * k ≤ m * k`, `protected theorem mul_le_mul
# {n₁ m₁ n₂ m₂ : Nat} (h₁ : n₁ ≤ n₂) (h₂ : m₁ ≤ m₂) : n₁ * m₁ ≤ n₂ * m₂`, `protected theorem
# mul_lt_mul_of_pos_left {n m k : Nat} (h : n < m) (hk : k > 0) : k * n < k * m`, `…_right`,
# `protected theorem mul_pos {n m : Nat} (ha : n > 0) (hb : m > 0) : n * m > 0`, `protected theorem
# le_of_mul_le_mul_left {a b c : Nat} (h : c * a ≤ c * b) (hc : 0 < c) : a ≤ b`, `protected theorem
# eq_of_mul_eq_mul_left {m k n : Nat} (hn : 0 < n) (h : n * m = n * k) : m = k`, `theorem
# eq_of_mul_eq_mul_right {n m k : Nat} (hm : 0 < m) (h : n * m = k * m) : n = k`; src/Init/Prelude.lean
# `protected theorem Nat.lt_or_ge (n m : Nat) : n < m ∨ n ≥ m`.
FIELD_LEMMAS: dict[str, str] = {
        "Nat.succ_add": "∀ (n m : Nat), n + 1 + m = n + m + 1",
        "Nat.add_succ": "∀ (n m : Nat), n + (m + 1) = n + m + 1",
        "Nat.mul_succ": "∀ (n m : Nat), n * (m + 1) = n * m + n",
        "Nat.succ_mul": "∀ (n m : Nat), (n + 1) * m = n * m + m",
        "Nat.sub_le": "∀ (n m : Nat), n - m ≤ n",
        "Nat.lt_succ_of_le": "∀ {n m : Nat}, n ≤ m → n < m + 1",
        "Nat.le_of_lt_succ": "∀ {m n : Nat}, m < n + 1 → m ≤ n",
        "Nat.succ_le_succ": "∀ {n m : Nat}, n ≤ m → n + 1 ≤ m + 1",
        "Nat.eq_zero_of_le_zero": "∀ {n : Nat}, n ≤ 0 → n = 0",
        "Nat.le_total": "∀ (m n : Nat), m ≤ n ∨ n ≤ m",
        "Nat.lt_or_gt_of_ne": "∀ {a b : Nat}, a ≠ b → a < b ∨ a > b",
        "Nat.one_ne_zero": "1 ≠ (0 : Nat)",
        "Nat.add_sub_of_le": "∀ {a b : Nat}, a ≤ b → a + (b - a) = b",
        "Nat.sub_add_cancel": "∀ {n m : Nat}, m ≤ n → n - m + m = n",
        "Nat.zero_sub": "∀ (n : Nat), 0 - n = 0",
        "Nat.sub_zero": "∀ (n : Nat), n - 0 = n",
        "Nat.succ_sub_one": "∀ (n : Nat), n + 1 - 1 = n",
        "Nat.pos_pow_of_pos": "∀ {n : Nat} (m : Nat), 0 < n → 0 < n ^ m",
        "Nat.mod_one": "∀ (a : Nat), a % 1 = 0",
        "Nat.mod_zero": "∀ (a : Nat), a % 0 = a",
        "Nat.div_one": "∀ (n : Nat), n / 1 = n",
        "Nat.div_zero": "∀ (n : Nat), n / 0 = 0",
        "Int.emod_one": "∀ (a : Int), a % 1 = 0",
        "Int.emod_zero": "∀ (a : Int), a % 0 = a",
        "Int.dvd_refl": "∀ (n : Int), n ∣ n",
        "Int.dvd_trans": "∀ {a b c : Int}, a ∣ b → b ∣ c → a ∣ c",
        "Int.dvd_mul_right": "∀ (a b : Int), a ∣ a * b",
        "Int.dvd_mul_left": "∀ (a b : Int), b ∣ a * b",
        "dvd_zero": "∀ (a : {α}), a ∣ 0",
        "one_dvd": "∀ (a : {α}), 1 ∣ a",
        "mul_two": "∀ (a : {α}), a * 2 = a + a",
        "le_total": "∀ (a b : {α}), a ≤ b ∨ b ≤ a",
        "lt_or_gt_of_ne": "∀ {a b : {α}}, a ≠ b → a < b ∨ a > b",
        "eq_comm": "∀ {a b : {α}}, a = b ↔ b = a",
        "Nat.pow_one": "∀ (a : Nat), a ^ 1 = a",
        "Nat.one_pow": "∀ (n : Nat), 1 ^ n = 1",
        "Eq.refl": "∀ (a : {α}), a = a",
        "one_pow": "∀ (n : Nat), (1 : {α}) ^ n = 1",
        "lt_add_one": "∀ (a : {α}), a < a + 1",
        "dvd_mul_of_dvd_left": "∀ {a b : {α}}, a ∣ b → ∀ (c : {α}), a ∣ b * c",
        "dvd_mul_of_dvd_right": "∀ {a b : {α}}, a ∣ b → ∀ (c : {α}), a ∣ c * b",
        # order (Mathlib/Init/Order/Defs.lean, a LinearOrder / PartialOrder: ℕ and ℤ)
        "not_lt": "∀ {a b : {α}}, ¬a < b ↔ b ≤ a",
        "not_le": "∀ {a b : {α}}, ¬a ≤ b ↔ b < a",
        "le_of_not_lt": "∀ {a b : {α}}, ¬b < a → a ≤ b",
        "le_of_not_gt": "∀ {a b : {α}}, ¬a > b → a ≤ b",
        "le_of_not_ge": "∀ {a b : {α}}, ¬a ≥ b → a ≤ b",
        "le_of_not_le": "∀ {a b : {α}}, ¬a ≤ b → b ≤ a",
        "lt_of_not_ge": "∀ {a b : {α}}, ¬a ≥ b → a < b",
        "not_lt_of_gt": "∀ {a b : {α}}, a > b → ¬a < b",
        "lt_trichotomy": "∀ (a b : {α}), a < b ∨ a = b ∨ b < a",
        "lt_or_le": "∀ (a b : {α}), a < b ∨ b ≤ a",
        "le_or_lt": "∀ (a b : {α}), a ≤ b ∨ b < a",
        "lt_or_ge": "∀ (a b : {α}), a < b ∨ a ≥ b",
        "le_or_gt": "∀ (a b : {α}), a ≤ b ∨ a > b",
        "lt_iff_not_ge": "∀ (x y : {α}), x < y ↔ ¬x ≥ y",
        "lt_of_le_of_ne": "∀ {a b : {α}}, a ≤ b → a ≠ b → a < b",
        # core ℕ order and products (src/Init/Data/Nat/Basic.lean at 01f0fed, as above)
        "Nat.add_le_add": "∀ {a b c d : Nat}, a ≤ b → c ≤ d → a + c ≤ b + d",
        "Nat.add_lt_add": "∀ {a b c d : Nat}, a < b → c < d → a + c < b + d",
        "Nat.add_le_add_left": "∀ {n m : Nat}, n ≤ m → ∀ (k : Nat), k + n ≤ k + m",
        "Nat.add_le_add_right": "∀ {n m : Nat}, n ≤ m → ∀ (k : Nat), n + k ≤ m + k",
        "Nat.pos_iff_ne_zero": "∀ {n : Nat}, 0 < n ↔ n ≠ 0",
        "Nat.not_le": "∀ {a b : Nat}, ¬a ≤ b ↔ b < a",
        "Nat.not_lt": "∀ {a b : Nat}, ¬a < b ↔ b ≤ a",
        "Nat.lt_trichotomy": "∀ (a b : Nat), a < b ∨ a = b ∨ b < a",
        "Nat.le_antisymm_iff": "∀ {a b : Nat}, a = b ↔ a ≤ b ∧ b ≤ a",
        "Nat.lt_iff_le_and_ne": "∀ {m n : Nat}, m < n ↔ m ≤ n ∧ m ≠ n",
        "Nat.lt_or_ge": "∀ (n m : Nat), n < m ∨ n ≥ m",
        "Nat.sub_lt": "∀ {n m : Nat}, 0 < n → 0 < m → n - m < n",
        "Nat.mul_le_mul_left": "∀ {n m : Nat} (k : Nat), n ≤ m → k * n ≤ k * m",
        "Nat.mul_le_mul_right": "∀ {n m : Nat} (k : Nat), n ≤ m → n * k ≤ m * k",
        "Nat.mul_le_mul": "∀ {n₁ m₁ n₂ m₂ : Nat}, n₁ ≤ n₂ → m₁ ≤ m₂ → n₁ * m₁ ≤ n₂ * m₂",
        "Nat.mul_lt_mul_of_pos_left": "∀ {n m k : Nat}, n < m → k > 0 → k * n < k * m",
        "Nat.mul_lt_mul_of_pos_right": "∀ {n m k : Nat}, n < m → k > 0 → n * k < m * k",
        "Nat.mul_pos": "∀ {n m : Nat}, n > 0 → m > 0 → n * m > 0",
        "Nat.le_of_mul_le_mul_left": "∀ {a b c : Nat}, c * a ≤ c * b → 0 < c → a ≤ b",
        "Nat.eq_of_mul_eq_mul_left": "∀ {m k n : Nat}, 0 < n → n * m = n * k → m = k",
        "Nat.eq_of_mul_eq_mul_right": "∀ {n m k : Nat}, 0 < m → n * m = k * m → n = k",
        # core ℕ subtraction and successor lemmas, src/Init/Data/Nat/Basic.lean at 01f0fed (statements
        # in the comment of SUB_SOURCES below)
        "Nat.add_sub_add_right": "∀ (n k m : Nat), n + k - (m + k) = n - m",
        "Nat.add_sub_add_left": "∀ (k n m : Nat), k + n - (k + m) = n - m",
        "Nat.add_sub_assoc": "∀ {m k : Nat}, k ≤ m → ∀ (n : Nat), n + m - k = n + (m - k)",
        "Nat.eq_add_of_sub_eq": "∀ {a b c : Nat}, b ≤ a → a - b = c → a = c + b",
        "Nat.sub_eq_of_eq_add": "∀ {a b c : Nat}, a = c + b → a - b = c",
        "Nat.le_add_of_sub_le": "∀ {a b c : Nat}, a - b ≤ c → a ≤ c + b",
        "Nat.sub_le_of_le_add": "∀ {a b c : Nat}, a ≤ c + b → a - b ≤ c",
        "Nat.add_le_of_le_sub": "∀ {a b c : Nat}, b ≤ c → a ≤ c - b → a + b ≤ c",
        "Nat.le_sub_of_add_le": "∀ {a b c : Nat}, a + b ≤ c → a ≤ c - b",
        "Nat.add_lt_of_lt_sub": "∀ {a b c : Nat}, a < c - b → a + b < c",
        "Nat.lt_sub_of_add_lt": "∀ {a b c : Nat}, a + b < c → a < c - b",
        "Nat.sub_add_eq": "∀ (a b c : Nat), a - (b + c) = a - b - c",
        "Nat.succ_sub_succ": "∀ (n m : Nat), n + 1 - (m + 1) = n - m",
        "Nat.sub_lt_sub_left": "∀ {k m n : Nat}, k < m → k < n → m - n < m - k",
        "Nat.zero_lt_sub_of_lt": "∀ {i a : Nat}, i < a → 0 < a - i",
        "Nat.sub_ne_zero_of_lt": "∀ {a b : Nat}, a < b → b - a ≠ 0",
        "Nat.add_sub_self_left": "∀ (a b : Nat), a + b - a = b",
        "Nat.add_sub_self_right": "∀ (a b : Nat), a + b - b = a",
        "Nat.le_of_add_le_add_left": "∀ {a b c : Nat}, a + b ≤ a + c → b ≤ c",
        "Nat.le_of_add_le_add_right": "∀ {a b c : Nat}, a + b ≤ c + b → a ≤ c",
        "Nat.add_lt_add_left": "∀ {n m : Nat}, n < m → ∀ (k : Nat), k + n < k + m",
        "Nat.add_lt_add_right": "∀ {n m : Nat}, n < m → ∀ (k : Nat), n + k < m + k",
        "Nat.lt_add_of_pos_right": "∀ {k n : Nat}, 0 < k → n < n + k",
        "Nat.le_of_eq": "∀ {n m : Nat}, n = m → n ≤ m",
        "Nat.le_of_succ_le": "∀ {n m : Nat}, n + 1 ≤ m → n ≤ m",
        "Nat.lt_of_succ_lt": "∀ {n m : Nat}, n + 1 < m → n < m",
        "Nat.eq_zero_or_pos": "∀ (n : Nat), n = 0 ∨ n > 0",
        "Nat.zero_lt_of_ne_zero": "∀ {a : Nat}, a ≠ 0 → 0 < a",
        "Nat.zero_lt_of_lt": "∀ {a b : Nat}, a < b → 0 < b",
        "Nat.ne_of_gt": "∀ {a b : Nat}, b < a → a ≠ b",
        "Nat.ne_of_lt": "∀ {a b : Nat}, a < b → a ≠ b",
        "Nat.le_zero": "∀ {i : Nat}, i ≤ 0 ↔ i = 0",
        "Nat.lt_succ": "∀ {m n : Nat}, m < n + 1 ↔ m ≤ n",
        "Nat.succ_le": "∀ {n m : Nat}, n + 1 ≤ m ↔ n < m",
        "Nat.succ_lt_succ": "∀ {n m : Nat}, n < m → n + 1 < m + 1",
        "Nat.succ_le_succ_iff": "∀ {a b : Nat}, a + 1 ≤ b + 1 ↔ a ≤ b",
        "Nat.succ_lt_succ_iff": "∀ {a b : Nat}, a + 1 < b + 1 ↔ a < b",
        "Nat.succ_inj'": "∀ {a b : Nat}, a + 1 = b + 1 ↔ a = b",
        "Nat.le_sub_one_of_lt": "∀ {a b : Nat}, a < b → a ≤ b - 1",
        "Nat.add_one_ne_zero": "∀ (n : Nat), n + 1 ≠ 0",
        "Nat.succ_ne_self": "∀ (n : Nat), n + 1 ≠ n",
        "Nat.lt_add_right": "∀ {a b : Nat} (c : Nat), a < b → a < b + c",
        "Nat.lt_add_left": "∀ {a b : Nat} (c : Nat), a < b → a < c + b",
        # lean4 src/Init/Data/Int/Order.lean `theorem lt_iff_add_one_le {a b : Int} : a < b ↔ a + 1 ≤ b`,
        # `theorem add_one_le_iff {a b : Int} : a + 1 ≤ b ↔ a < b`, `theorem lt_add_one_iff {a b : Int} :
        # a < b + 1 ↔ a ≤ b`, `theorem le_add_one {a b : Int} (h : a ≤ b) : a ≤ b + 1`; src/Init/Data/Nat/
        # Basic.lean `theorem lt_iff_add_one_le : m < n ↔ m + 1 ≤ n`, `theorem lt_add_one_iff : m < n + 1
        # ↔ m ≤ n`, `protected theorem sub_pos_of_lt (h : m < n) : 0 < n - m`, `protected theorem
        # lt_of_sub_pos (h : 0 < n - m) : m < n`
        "Int.lt_iff_add_one_le": "∀ {a b : Int}, a < b ↔ a + 1 ≤ b",
        "Int.add_one_le_iff": "∀ {a b : Int}, a + 1 ≤ b ↔ a < b",
        "Int.lt_add_one_iff": "∀ {a b : Int}, a < b + 1 ↔ a ≤ b",
        "Int.le_add_one": "∀ {a b : Int}, a ≤ b → a ≤ b + 1",
        "Nat.lt_iff_add_one_le": "∀ {m n : Nat}, m < n ↔ m + 1 ≤ n",
        "Nat.lt_add_one_iff": "∀ {m n : Nat}, m < n + 1 ↔ m ≤ n",
        "Nat.sub_pos_of_lt": "∀ {m n : Nat}, m < n → 0 < n - m",
        "Nat.lt_of_sub_pos": "∀ {m n : Nat}, 0 < n - m → m < n",
        # Mathlib/Algebra/Order/Ring/Lemmas.lean, …/GroupPower/Order.lean, …/Order/Monoid/Lemmas.lean
        # (ordered semirings: ℕ and ℤ): `theorem pow_pos (H : 0 < a) (n : ℕ) : 0 < a ^ n`, `theorem
        # pow_nonneg (H : 0 ≤ a) : ∀ n : ℕ, 0 ≤ a ^ n`, `zero_lt_one : (0 : α) < 1`, `zero_le_one : (0 :
        # α) ≤ 1`, `zero_lt_two : (0 : α) < 2`, `two_pos` and `one_pos` (aliases), `theorem
        # mul_lt_mul_of_pos_left (h : b < c) (a_pos : 0 < a) : a * b < a * c`, `theorem
        # mul_le_mul_of_nonneg_left (h : b ≤ c) (a_nonneg : 0 ≤ a) : a * b ≤ a * c`, `theorem
        # mul_le_mul_of_nonneg_right (h : b ≤ c) (a_nonneg : 0 ≤ a) : b * a ≤ c * a`, `theorem
        # add_pos_of_pos_of_nonneg (ha : 0 < a) (hb : 0 ≤ b) : 0 < a + b`, `add_pos_of_nonneg_of_pos`
        "pow_pos": "∀ {a : {α}}, 0 < a → ∀ (n : Nat), 0 < a ^ n",
        "pow_nonneg": "∀ {a : {α}}, 0 ≤ a → ∀ (n : Nat), 0 ≤ a ^ n",
        "zero_lt_one": "(0 : {α}) < 1",
        "one_pos": "(0 : {α}) < 1",
        "zero_le_one": "(0 : {α}) ≤ 1",
        "zero_lt_two": "(0 : {α}) < 2",
        "two_pos": "(0 : {α}) < 2",
        "mul_lt_mul_of_pos_left": "∀ {a b c : {α}}, b < c → 0 < a → a * b < a * c",
        "mul_le_mul_of_nonneg_left": "∀ {a b c : {α}}, b ≤ c → 0 ≤ a → a * b ≤ a * c",
        "mul_le_mul_of_nonneg_right": "∀ {a b c : {α}}, b ≤ c → 0 ≤ a → b * a ≤ c * a",
        "add_pos_of_pos_of_nonneg": "∀ {a b : {α}}, 0 < a → 0 ≤ b → 0 < a + b",
        "add_pos_of_nonneg_of_pos": "∀ {a b : {α}}, 0 ≤ a → 0 < b → 0 < a + b",
        # lean4 src/Init/Data/Int/Order.lean `@[simp, norm_cast] theorem ofNat_le {m n : Nat} : (↑m : Int)
        # ≤ ↑n ↔ m ≤ n`, `@[simp, norm_cast] theorem ofNat_lt {n m : Nat} : (↑n : Int) < ↑m ↔ n < m`
        "Int.ofNat_le": "∀ {m n : Nat}, (m : Int) ≤ (n : Int) ↔ m ≤ n",
        "Int.ofNat_lt": "∀ {n m : Nat}, (n : Int) < (m : Int) ↔ n < m",
}

# Mathlib's lemmas of additive groups and rings, stated for a class ℕ is not an instance of
# (`SubNegMonoid`, `AddGroup`, `NonUnitalNonAssocRing`, `OrderedAddCommGroup`; ℕ has the `tsub_`
# lemmas instead), so ℤ only, as `sub_sq` above: Mathlib/Algebra/Group/Basic.lean `sub_eq_add_neg (a
# b : α) : a - b = a + -b`, `neg_neg (a : G) : - -a = a`, `sub_zero (a : G) : a - 0 = a`, `zero_sub
# (a : G) : 0 - a = -a`, `sub_self (a : G) : a - a = 0`, `neg_add_rev (a b : α) : -(a + b) = -b +
# -a`, `sub_sub (a b c : α) : a - b - c = a - (b + c)`, `neg_sub (a b : α) : -(a - b) = b - a`,
# `sub_neg_eq_add (a b : α) : a - -b = a + b`, `sub_add_cancel (a b : G) : a - b + b = a`,
# `sub_eq_zero {a b : G} : a - b = 0 ↔ a = b`; Mathlib/Algebra/Ring/Defs.lean `mul_sub (a b c : α) :
# a * (b - c) = a * b - a * c`, `sub_mul (a b c : α) : (a - b) * c = a * c - b * c`, `neg_mul (a b :
# α) : -a * b = -(a * b)`, `mul_neg (a b : α) : a * -b = -(a * b)`; Mathlib/Algebra/GroupPower/Basic.lean
# `neg_sq (a : α) : (-a) ^ 2 = a ^ 2`; Mathlib/Algebra/Order/Group/Defs.lean `sub_nonneg {a b : α} :
# 0 ≤ a - b ↔ b ≤ a`, `sub_pos {a b : α} : 0 < a - b ↔ b < a`, `sub_nonpos {a b : α} : a - b ≤ 0 ↔ a
# ≤ b`, `sub_neg {a b : α} : a - b < 0 ↔ a < b`. Mathlib's casts ℕ → R at R = ℤ (the one other
# type of the fragment), Mathlib/Data/Nat/Cast/Basic.lean and Defs.lean: `Nat.cast_add (m n : ℕ) :
# ((m + n : ℕ) : R) = m + n`, `Nat.cast_mul (m n : ℕ)`, `Nat.cast_pow (n m : ℕ) : ↑(n ^ m) = (↑n ^ m
# : R)`, `Nat.cast_succ (n : ℕ) : ((succ n : ℕ) : R) = n + 1`, `Nat.cast_sub {m n} (h : m ≤ n) : ((n
# - m : ℕ) : R) = n - m`, `Nat.cast_inj {m n : ℕ} : (m : R) = n ↔ m = n`, `Nat.cast_le {m n : ℕ} :
# (m : α) ≤ n ↔ m ≤ n`, `Nat.cast_lt {m n : ℕ} : (m : α) < n ↔ m < n`.
FIELD_LEMMAS.update(
    {
        "sub_eq_add_neg": "∀ (a b : Int), a - b = a + -b",
        "neg_neg": "∀ (a : Int), - -a = a",
        "sub_zero": "∀ (a : Int), a - 0 = a",
        "zero_sub": "∀ (a : Int), 0 - a = -a",
        "sub_self": "∀ (a : Int), a - a = 0",
        "neg_add_rev": "∀ (a b : Int), -(a + b) = -b + -a",
        "sub_sub": "∀ (a b c : Int), a - b - c = a - (b + c)",
        "neg_sub": "∀ (a b : Int), -(a - b) = b - a",
        "sub_neg_eq_add": "∀ (a b : Int), a - -b = a + b",
        "sub_add_cancel": "∀ (a b : Int), a - b + b = a",
        "sub_eq_zero": "∀ {a b : Int}, a - b = 0 ↔ a = b",
        "mul_sub": "∀ (a b c : Int), a * (b - c) = a * b - a * c",
        "sub_mul": "∀ (a b c : Int), (a - b) * c = a * c - b * c",
        "neg_mul": "∀ (a b : Int), -a * b = -(a * b)",
        "mul_neg": "∀ (a b : Int), a * -b = -(a * b)",
        "neg_sq": "∀ (a : Int), (-a) ^ 2 = a ^ 2",
        "sub_nonneg": "∀ {a b : Int}, 0 ≤ a - b ↔ b ≤ a",
        "sub_pos": "∀ {a b : Int}, 0 < a - b ↔ b < a",
        "sub_nonpos": "∀ {a b : Int}, a - b ≤ 0 ↔ a ≤ b",
        "sub_neg": "∀ {a b : Int}, a - b < 0 ↔ a < b",
        # their aliases (Mathlib/Algebra/Order/Group/Defs.lean `alias ⟨le_of_sub_nonneg,
        # sub_nonneg_of_le⟩ := sub_nonneg`, `alias ⟨lt_of_sub_pos, sub_pos_of_lt⟩ := sub_pos`) and
        # Mathlib/Algebra/Ring/Basic.lean `theorem dvd_sub (h₁ : a ∣ b) (h₂ : a ∣ c) : a ∣ b - c`
        # ([NonUnitalRing α])
        "le_of_sub_nonneg": "∀ {a b : Int}, 0 ≤ a - b → b ≤ a",
        "sub_nonneg_of_le": "∀ {a b : Int}, b ≤ a → 0 ≤ a - b",
        "lt_of_sub_pos": "∀ {a b : Int}, 0 < a - b → b < a",
        "sub_pos_of_lt": "∀ {a b : Int}, b < a → 0 < a - b",
        "dvd_sub": "∀ {a b c : Int}, a ∣ b → a ∣ c → a ∣ b - c",
        "Nat.cast_add": "∀ (m n : Nat), ((m + n : Nat) : Int) = (m : Int) + (n : Int)",
        "Nat.cast_mul": "∀ (m n : Nat), ((m * n : Nat) : Int) = (m : Int) * (n : Int)",
        "Nat.cast_pow": "∀ (n m : Nat), ((n ^ m : Nat) : Int) = (n : Int) ^ m",
        "Nat.cast_succ": "∀ (n : Nat), ((n + 1 : Nat) : Int) = (n : Int) + 1",
        "Nat.cast_sub": "∀ {m n : Nat}, m ≤ n → ((n - m : Nat) : Int) = (n : Int) - (m : Int)",
        "Nat.cast_inj": "∀ {m n : Nat}, (m : Int) = (n : Int) ↔ m = n",
        "Nat.cast_le": "∀ {m n : Nat}, (m : Int) ≤ (n : Int) ↔ m ≤ n",
        "Nat.cast_lt": "∀ {m n : Nat}, (m : Int) < (n : Int) ↔ m < n",
    }
)

# Issue 37, remainder and division lemmas of the field's provers whose divisor is a variable in
# general: each use is proved as its instance (tactics/lemma_use.py; lemmas.py `INSTANCE_LEMMAS`), never the statement.
# leanprover/lean4 src/Init/Data/Nat/Basic.lean and Lemmas.lean (Nat.mod_add_mod … as in
# src/Init/Data/Nat/Lemmas.lean: `@[simp] theorem mod_add_mod (m n k : Nat) : (m % n + k) % n = (m +
# k) % n`, `@[simp] theorem add_mod_mod (m n k : Nat) : (m + n % k) % k = (m + n) % k`, `@[simp]
# theorem mul_mod_mod (m n l : Nat) : (m * (n % l)) % l = (m * n) % l`); src/Init/Data/Nat/Div.lean
# (`@[simp] theorem add_mod_right (x z : Nat) : (x + z) % z = x % z`, `@[simp] theorem add_mod_left
# (x z : Nat) : (x + z) % x = z % x`, `theorem mul_div_le (m n : Nat) : n * (m / n) ≤ m`, `@[simp]
# theorem zero_mod (b : Nat) : 0 % b = 0`, `protected theorem zero_div (b : Nat) : 0 / b = 0`,
# `theorem mod_le (x y : Nat) : x % y ≤ x`, `theorem div_le_self (n k : Nat) : n / k ≤ n`, `theorem
# div_eq_of_lt (h₀ : a < b) : a / b = 0` with {a b} bound automatically); src/Init/Data/Int/
# DivModLemmas.lean (`theorem emod_nonneg : ∀ (a : Int) {b : Int}, b ≠ 0 → 0 ≤ a % b`, `theorem
# emod_lt_of_pos (a : Int) {b : Int} (H : 0 < b) : a % b < b`, `@[simp] theorem add_emod_self {a b :
# Int} : (a + b) % b = a % b`, `@[simp] theorem add_emod_self_left {a b : Int} : (a + b) % a = b %
# a`, `@[simp] theorem emod_add_emod (m n k : Int) : (m % n + k) % n = (m + k) % n`, `@[simp] theorem
# add_emod_emod (m n k : Int) : (m + n % k) % k = (m + n) % k`, `@[simp] theorem mul_emod_left (a b :
# Int) : (a * b) % b = 0`, `@[simp] theorem mul_emod_right (a b : Int) : (a * b) % a = 0`, `@[simp]
# theorem emod_self {a : Int} : a % a = 0`, `theorem emod_two_eq (x : Int) : x % 2 = 0 ∨ x % 2 = 1`,
# `theorem dvd_of_emod_eq_zero {a b : Int} (H : b % a = 0) : a ∣ b`, `theorem emod_eq_zero_of_dvd :
# ∀ {a b : Int}, a ∣ b → b % a = 0`, `theorem emod_emod_of_dvd`, `theorem emod_eq_emod_iff_emod_sub_eq_zero
# {m n k : Int} : m % n = k % n ↔ (m - k) % n = 0`); src/Init/Data/Int/DivMod.lean `@[simp] theorem
# zero_emod (b : Int) : 0 % b = 0`. Mathlib/Data/Int/Basic.lean (Mathlib before 2024-04; renamed
# `Int.natCast_dvd_natCast` later, the name kept as a deprecated alias) `theorem coe_nat_dvd {m n :
# ℕ} : (↑m : ℤ) ∣ ↑n ↔ m ∣ n`. Mathlib/Algebra/GroupWithZero/Basic.lean (a CancelMonoidWithZero: ℕ
# and ℤ) `theorem mul_right_inj' (ha : a ≠ 0) : a * b = a * c ↔ b = c`, `theorem mul_left_inj' (hc :
# c ≠ 0) : a * c = b * c ↔ a = b` (non-linear in general; an instance with a numeral factor is linear).
FIELD_INSTANCE_LEMMAS: dict[str, str] = {
        "Nat.mod_add_mod": "∀ (m n k : Nat), (m % n + k) % n = (m + k) % n",
        "Nat.add_mod_mod": "∀ (m n k : Nat), (m + n % k) % k = (m + n) % k",
        "Nat.mul_mod_mod": "∀ (m n l : Nat), m * (n % l) % l = m * n % l",
        "Nat.add_mod_right": "∀ (x z : Nat), (x + z) % z = x % z",
        "Nat.add_mod_left": "∀ (x z : Nat), (x + z) % x = z % x",
        "Nat.mul_div_le": "∀ (m n : Nat), n * (m / n) ≤ m",
        "Nat.zero_mod": "∀ (b : Nat), 0 % b = 0",
        "Nat.zero_div": "∀ (b : Nat), 0 / b = 0",
        "Nat.mod_le": "∀ (x y : Nat), x % y ≤ x",
        "Nat.div_le_self": "∀ (n k : Nat), n / k ≤ n",
        "Nat.div_eq_of_lt": "∀ {a b : Nat}, a < b → a / b = 0",
        "Int.emod_nonneg": "∀ (a : Int) {b : Int}, b ≠ 0 → 0 ≤ a % b",
        "Int.emod_lt_of_pos": "∀ (a : Int) {b : Int}, 0 < b → a % b < b",
        "Int.add_emod_self": "∀ {a b : Int}, (a + b) % b = a % b",
        "Int.add_emod_self_left": "∀ {a b : Int}, (a + b) % a = b % a",
        "Int.emod_add_emod": "∀ (m n k : Int), (m % n + k) % n = (m + k) % n",
        "Int.add_emod_emod": "∀ (m n k : Int), (m + n % k) % k = (m + n) % k",
        "Int.mul_emod_left": "∀ (a b : Int), a * b % b = 0",
        "Int.mul_emod_right": "∀ (a b : Int), a * b % a = 0",
        "Int.emod_self": "∀ {a : Int}, a % a = 0",
        "Int.emod_two_eq": "∀ (x : Int), x % 2 = 0 ∨ x % 2 = 1",
        "Int.dvd_of_emod_eq_zero": "∀ {a b : Int}, b % a = 0 → a ∣ b",
        "Int.emod_eq_zero_of_dvd": "∀ {a b : Int}, a ∣ b → b % a = 0",
        "Int.emod_eq_emod_iff_emod_sub_eq_zero": "∀ {m n k : Int}, m % n = k % n ↔ (m - k) % n = 0",
        "Int.zero_emod": "∀ (b : Int), 0 % b = 0",
        "Int.coe_nat_dvd": "∀ {m n : Nat}, (m : Int) ∣ (n : Int) ↔ m ∣ n",
        "Int.natCast_dvd_natCast": "∀ {m n : Nat}, (m : Int) ∣ (n : Int) ↔ m ∣ n",
        "mul_right_inj'": "∀ {a b c : {α}}, a ≠ 0 → (a * b = a * c ↔ b = c)",
        "mul_left_inj'": "∀ {a b c : {α}}, c ≠ 0 → (a * c = b * c ↔ a = b)",
}

# Names Mathlib has whose type class neither ℕ nor ℤ is an instance of, so in Lean they never
# rewrite a term of the fragment (each with the error `rw` answers): `simp [mul_div_cancel_left]` uses them for nothing (no error), `rw`
# and proof terms fail ("failed to synthesize"). Mathlib/Algebra/Group/Basic.lean `mul_div_cancel_left
# (a b : G) : a * b / a = b` ([CommGroup G]; before 2024-03, Mathlib/Algebra/GroupWithZero/Basic.lean
# `(ha : a ≠ 0) : a * b / a = b` with [CommGroupWithZero G₀], neither an instance at ℕ or ℤ; ℕ's is
# the protected `Nat.mul_div_cancel_left`), Mathlib/Algebra/Group/Defs.lean `div_eq_mul_inv (a b : G)
# : a / b = a * b⁻¹` ([DivInvMonoid G]), Mathlib/Algebra/Group/Basic.lean `div_eq_inv_mul (a b : α) : a /
# b = b⁻¹ * a` ([DivisionCommMonoid α]), Mathlib/Algebra/GroupWithZero/Basic.lean (later
# Mathlib/Algebra/GroupWithZero/Units/Basic.lean) `div_eq_iff (hb : b ≠ 0) : a / b = c ↔ a = c * b`,
# `eq_div_iff (hb : b ≠ 0) : c = a / b ↔ c * b = a`, `div_eq_iff_mul_eq (hb : b ≠ 0) : a / b = c ↔ c *
# b = a` ([GroupWithZero G₀] {a b c : G₀}).
NO_INSTANCE: dict[str, str] = {
    name: f"failed to synthesize\n  {cls} ?α\n(no instance at ℕ or ℤ: {name})"
    for name, cls in (
        ("mul_div_cancel_left", "CommGroup"),
        ("div_eq_mul_inv", "DivInvMonoid"),
        ("div_eq_inv_mul", "DivisionCommMonoid"),
        ("div_eq_iff_mul_eq", "GroupWithZero"),
        ("div_eq_iff", "GroupWithZero"),
        ("eq_div_iff", "GroupWithZero"),
    )
}

# Names whose left side never occurs in a term of the fragment, which writes `succ n` as `n + 1`
# and a cast of a numeral as the numeral (`((5 : ℕ) : ℤ)` is `5`): they too rewrite nothing in a
# simp list, and `rw` finds no instance of their pattern (Lean 4 after `induction` shows `n + 1`
# too). lean4 src/Init/Data/Nat/Basic.lean `theorem succ_eq_add_one (n : Nat) : succ n = n + 1`;
# Mathlib/Data/Nat/Cast/Defs.lean `Nat.cast_zero : ((0 : ℕ) : R) = 0`, `Nat.cast_one : ((1 : ℕ) : R)
# = 1`, `Nat.cast_ofNat : ((OfNat.ofNat n : ℕ) : R) = OfNat.ofNat n`, `Nat.cast_id (n : ℕ) : n.cast =
# n` (a cast ℕ → ℕ); lean4 src/Init/Data/Nat/Basic.lean `theorem pred_eq_sub_one : pred n = n - 1`,
# src/Init/Data/Int/Basic.lean `theorem ofNat_eq_coe : Int.ofNat n = Nat.cast n`; Mathlib/Algebra/
# Group/Nat/Even.lean (Mathlib/Data/Nat/Parity.lean before) `Nat.even_iff : Even n ↔ n % 2 = 0`,
# `Nat.odd_iff : Odd n ↔ n % 2 = 1`, Mathlib/Algebra/Group/Int/Even.lean `Int.even_iff : Even n ↔ n %
# 2 = 0`, `Int.odd_iff : Odd n ↔ n % 2 = 1` (`Even`/`Odd` are outside the fragment: no term of it has
# them).
_NO_PATTERN = (
    ("Nat.succ_eq_add_one", "Nat.succ ?n"),
    ("Nat.cast_zero", "↑0"),
    ("Nat.cast_one", "↑1"),
    ("Nat.cast_ofNat", "↑(OfNat.ofNat ?n)"),
    ("Nat.cast_id", "↑?n"),
    ("Nat.pred_eq_sub_one", "Nat.pred ?n"),
    ("Int.ofNat_eq_coe", "Int.ofNat ?n"),
    ("Nat.even_iff", "Even ?n"),
    ("Nat.odd_iff", "Odd ?n"),
    ("Int.even_iff", "Even ?n"),
    ("Int.odd_iff", "Odd ?n"),
)
# read right to left (`simp [← Nat.even_iff]`) their right side does occur, and Lean rewrites it into
# a term outside the fragment: refused
ONE_WAY = frozenset(name for name, _ in _NO_PATTERN)
NO_INSTANCE.update(
    {
        name: f"tactic 'rewrite' failed, did not find instance of the pattern in the target expression\n  {pattern}"
        for name, pattern in _NO_PATTERN
    }
)

# Mathlib lemmas stated for a type class (a ring, a group, the cast's target `R`) that the catalogue
# writes at ℤ, the one type of the fragment that is an instance: polymorphic in Lean, so never copied
# with copyFrom as if they were core's monomorphic lemmas
AT_INT = frozenset(
    {
        "sub_eq_add_neg", "neg_neg", "sub_zero", "zero_sub", "sub_self", "neg_add_rev", "sub_sub", "neg_sub",
        "sub_neg_eq_add", "sub_add_cancel", "sub_eq_zero", "mul_sub", "sub_mul", "neg_mul", "mul_neg", "neg_sq",
        "sub_nonneg", "sub_pos", "sub_nonpos", "sub_neg", "sub_sq", "sub_pow_two", "Nat.cast_add", "Nat.cast_mul",
        "Nat.cast_pow", "Nat.cast_succ", "Nat.cast_sub", "Nat.cast_inj", "Nat.cast_le", "Nat.cast_lt",
        "le_of_sub_nonneg", "sub_nonneg_of_le", "lt_of_sub_pos", "sub_pos_of_lt", "dvd_sub",
    }
)

# SUB_SOURCES: lean4 src/Init/Data/Nat/Basic.lean at 01f0fedef8dafd21ec2d8d8fc742d99af4f1372f, as
# declared there (`succ n` is `n + 1` in the fragment; `protected` ones in FIELD_PROTECTED):
# `protected theorem add_sub_add_right (n k m : Nat) : (n + k) - (m + k) = n - m`, `protected theorem
# add_sub_add_left (k n m : Nat) : (k + n) - (k + m) = n - m`, `protected theorem add_sub_assoc {m k
# : Nat} (h : k ≤ m) (n : Nat) : n + m - k = n + (m - k)`, `protected theorem eq_add_of_sub_eq {a b c
# : Nat} (hle : b ≤ a) (h : a - b = c) : a = c + b`, `protected theorem sub_eq_of_eq_add {a b c :
# Nat} (h : a = c + b) : a - b = c`, `theorem le_add_of_sub_le {a b c : Nat} (h : a - b ≤ c) : a ≤ c
# + b`, `theorem sub_le_of_le_add {a b c : Nat} (h : a ≤ c + b) : a - b ≤ c`, `theorem
# add_le_of_le_sub {a b c : Nat} (hle : b ≤ c) (h : a ≤ c - b) : a + b ≤ c`, `theorem
# le_sub_of_add_le {a b c : Nat} (h : a + b ≤ c) : a ≤ c - b`, `theorem add_lt_of_lt_sub {a b c :
# Nat} (h : a < c - b) : a + b < c`, `theorem lt_sub_of_add_lt {a b c : Nat} (h : a + b < c) : a < c
# - b`, `theorem sub_add_eq (a b c : Nat) : a - (b + c) = a - b - c`, `theorem succ_sub_succ (n m :
# Nat) : succ n - succ m = n - m`, `protected theorem sub_lt_sub_left : ∀ {k m n : Nat}, k < m → k <
# n → m - n < m - k`, `theorem zero_lt_sub_of_lt (h : i < a) : 0 < a - i`, `theorem
# sub_ne_zero_of_lt : {a b : Nat} → a < b → b - a ≠ 0`, `theorem add_sub_self_left (a b : Nat) : (a +
# b) - a = b`, `theorem add_sub_self_right (a b : Nat) : (a + b) - b = a`, `protected theorem
# le_of_add_le_add_left {a b c : Nat} (h : a + b ≤ a + c) : b ≤ c`, `protected theorem
# le_of_add_le_add_right {a b c : Nat} : a + b ≤ c + b → a ≤ c`, `protected theorem add_lt_add_left
# {n m : Nat} (h : n < m) (k : Nat) : k + n < k + m`, `protected theorem add_lt_add_right`, `protected
# theorem lt_add_of_pos_right (h : 0 < k) : n < n + k`, `protected theorem le_of_eq {n m : Nat} (p :
# n = m) : n ≤ m`, `theorem le_of_succ_le {n m : Nat} (h : succ n ≤ m) : n ≤ m`, `theorem
# lt_of_succ_lt {n m : Nat} : succ n < m → n < m`, `theorem eq_zero_or_pos : ∀ (n : Nat), n = 0 ∨ n >
# 0`, `theorem zero_lt_of_ne_zero {a : Nat} (h : a ≠ 0) : 0 < a`, `theorem zero_lt_of_lt : {a b : Nat}
# → a < b → 0 < b`, `theorem ne_of_gt {a b : Nat} (h : b < a) : a ≠ b`, `theorem ne_of_lt {a b : Nat}
# (h : a < b) : a ≠ b`, `theorem le_zero : i ≤ 0 ↔ i = 0`, `theorem lt_succ : m < succ n ↔ m ≤ n`,
# `theorem succ_le : succ n ≤ m ↔ n < m`, `theorem succ_lt_succ {n m : Nat} : n < m → succ n < succ
# m`, `theorem succ_le_succ_iff : succ a ≤ succ b ↔ a ≤ b`, `theorem succ_lt_succ_iff : succ a < succ b
# ↔ a < b`, `theorem succ_inj' : succ a = succ b ↔ a = b`, `theorem le_sub_one_of_lt : a < b → a ≤ b -
# 1`, `theorem add_one_ne_zero (n) : n + 1 ≠ 0`, `theorem succ_ne_self (n) : succ n ≠ n`, `protected
# theorem lt_add_right (c : Nat) (h : a < b) : a < b + c`, `protected theorem lt_add_left (c : Nat) (h
# : a < b) : a < c + b`. `Nat.eq_zero_or_pos`, `Nat.ne_of_gt`, `Nat.ne_of_lt`: protected in later
# cores, and Mathlib has root lemmas of these names: never reached by the last component.

# `protected` among them (the sources above say which): `open Nat` does not reach them by their last
# component
FIELD_PROTECTED = frozenset(
    {
        "Nat.le_total", "Nat.lt_or_gt_of_ne", "Nat.one_ne_zero", "Nat.sub_add_cancel", "Nat.zero_sub",
        "Nat.sub_zero", "Nat.zero_div", "Int.dvd_refl", "Int.dvd_trans", "Int.dvd_mul_right",
        "Int.dvd_mul_left", "Nat.pow_one", "Nat.one_pow", "Nat.add_le_add_left", "Nat.add_le_add_right",
        "Nat.pos_iff_ne_zero", "Nat.not_le", "Nat.not_lt", "Nat.lt_trichotomy", "Nat.le_antisymm_iff",
        "Nat.lt_iff_le_and_ne", "Nat.lt_or_ge", "Nat.mul_le_mul", "Nat.mul_lt_mul_of_pos_left",
        "Nat.mul_lt_mul_of_pos_right", "Nat.mul_pos", "Nat.le_of_mul_le_mul_left", "Nat.eq_of_mul_eq_mul_left",
        # not protected at 01f0fed but later (and, unprotected, ambiguous with Mathlib's root lemma
        # of the same name under `open Nat`, an error in Lean): never reached by the last component
        "Nat.add_le_add", "Nat.add_lt_add", "Nat.mul_le_mul_left", "Nat.mul_le_mul_right",
        "Nat.add_sub_add_right", "Nat.add_sub_add_left", "Nat.add_sub_assoc", "Nat.eq_add_of_sub_eq",
        "Nat.sub_eq_of_eq_add", "Nat.sub_lt_sub_left", "Nat.le_of_add_le_add_left", "Nat.le_of_add_le_add_right",
        "Nat.add_lt_add_left", "Nat.add_lt_add_right", "Nat.lt_add_of_pos_right", "Nat.le_of_eq",
        "Nat.lt_add_right", "Nat.lt_add_left", "Nat.eq_zero_or_pos", "Nat.ne_of_gt", "Nat.ne_of_lt",
        "Nat.sub_pos_of_lt", "Nat.lt_of_sub_pos", "Nat.lt_iff_add_one_le", "Nat.lt_add_one_iff",
    }
)
