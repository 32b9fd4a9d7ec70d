"""The REPL front: the in-process Checker, the JSON-lines server, request decoding, frontend.process, answers, refusals, the request deadline, reference proofs checked in process."""

__all__: list[str] = []
