"""Wire models added for the embedded checker's typed API: options.print and expr.echo,
held to Pantograph/Protocol.lean at the pinned commit 757db11 (``structure Options``,
``OptionsPrint``, ``ExprEcho``, ``ExprEchoResult``; Repl.lean ``options_print`` returns the
whole ``Options``)."""

from __future__ import annotations

import json

import pytest

from burnqed.lean.errors import LeanReplError
from burnqed.lean.protocol import (
    ANSWER_TYPES,
    REQUEST_TYPES,
    ExprEcho,
    ExprEchoResult,
    Expression,
    OptionsPrint,
    OptionsPrintResult,
    decode_answer,
    encode_request,
)

# Pantograph's options.print answer with its defaults (Protocol.lean `structure Options`), keys sorted
PANTOGRAPH_OPTIONS = (
    '{"automaticMode":true,"noRepeat":false,"printAuxDecls":false,"printDependentMVars":false,'
    '"printExprAST":false,"printExprPretty":true,"printImplementationDetailHyps":false,'
    '"printJsonPretty":false,"timeout":0}'
)


def test_options_print_answer_reads_every_field_of_pantographs_options() -> None:
    answer = decode_answer(OptionsPrint(), PANTOGRAPH_OPTIONS)
    assert isinstance(answer, OptionsPrintResult)
    assert answer.print_expr_pretty is True and answer.automatic_mode is True and answer.timeout == 0
    assert json.dumps(answer.wire(), separators=(",", ":"), sort_keys=True) == PANTOGRAPH_OPTIONS


def test_options_print_of_a_repl_honouring_two_options_leaves_the_rest_out() -> None:
    assert OptionsPrintResult(automatic_mode=False, timeout=5).wire() == {"automaticMode": False, "timeout": 5}


def test_expr_echo_request_and_answer_use_pantographs_field_names() -> None:
    assert json.loads(encode_request(ExprEcho(expr="1 = 1", type="Prop", levels=["u"]))) == {
        "cmd": "expr.echo",
        "payload": {"expr": "1 = 1", "type": "Prop", "levels": ["u"]},
    }
    answer = decode_answer(ExprEcho(expr="1 = 1"), '{"expr":{"pp":"1 = 1"},"type":{"pp":"Prop"}}')
    assert answer == ExprEchoResult(expr=Expression(pp="1 = 1"), type=Expression(pp="Prop"))
    with pytest.raises(LeanReplError):
        decode_answer(ExprEcho(expr="1 +"), '{"desc":"bad","error":"parsing"}')


def test_every_modelled_request_has_its_answer_model() -> None:
    assert set(REQUEST_TYPES) == set(ANSWER_TYPES)
    assert all(model.cmd == cmd for cmd, model in REQUEST_TYPES.items())
