"""A saved copy of latex2sympy's ANTLR prediction cache, loaded by every grading worker.

ANTLR's parser decides each branch of the grammar by simulating its ATN and memoizes every
decision it has simulated in a DFA per decision point, shared by all parsers of the process.
A fresh process starts with empty DFAs and builds them as inputs arrive: on the real Sky-T1
traces that building (``closure_`` and ``computeReachSet`` in a profile) is about half of all
the CPU math-verify takes, a cost each new grading worker pays again. This module writes the
DFAs of a process that has parsed a corpus of answers to a file (:func:`dump`, run by
``benchmarks/parser_snapshot.py``) and loads them into a fresh process (:func:`load`, run by
each grading worker before its first parse).

A DFA is a cache, never a decision: ANTLR adds a state only by simulating the ATN, so a
prediction it serves is the one the simulation would return, whichever inputs the cache was
filled from and in whichever prediction mode (SLL and LL share the DFAs, as
:func:`.verify.install_two_stage_parsing` already relies on). Loading one therefore changes no
parse tree and no verdict, only the CPU; it is refused (a cold start, as before) unless the
file was written for the same ATN and the same ANTLR runtime, and ``benchmarks/parser_snapshot.py``
compares every reading with and without it on answers the snapshot was not built from.

The file holds plain JSON (no pickle: loading runs no code): prediction contexts, semantic
contexts and DFA states (with their configurations) as numbered records, ATN states by number.
Contexts are rebuilt with ANTLR's own constructors, which compute the hash codes it caches, and
configuration sets recompute theirs on first use: a configuration's hash includes that of
ANTLR's empty semantic context, an object hashed by identity, so no hash can be saved. Loading
takes about a quarter of a second, once per worker.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import sys
import zlib
from importlib import metadata
from pathlib import Path
from typing import Any

__all__ = ["SNAPSHOT", "dump", "fingerprint", "load"]

#: The snapshot shipped with the package (built by ``benchmarks/parser_snapshot.py``).
SNAPSHOT = Path(__file__).with_name("latex_dfa.json.gz")
_FORMAT = 1


def _parser() -> Any:
    from latex2sympy2_extended.antlr_parser import PSParser

    return PSParser


def fingerprint() -> str:
    """What a snapshot must have been written for: the parser's serialized ATN (which numbers
    its states and decisions), the ANTLR runtime's version and this file format."""
    module = sys.modules[_parser().__module__]
    digest = hashlib.sha256(json.dumps(module.serializedATN()).encode())
    digest.update(metadata.version("antlr4-python3-runtime").encode())
    digest.update(str(_FORMAT).encode())
    return digest.hexdigest()


# Reference codes in the file: a non-negative number indexes a table; -1 stands for ``None``
# (for a semantic context: ANTLR's empty one), -2 for the empty prediction context or the error
# state. Loading appends those to each table, so that every reference is a plain index.
_NONE, _SINGLETON = -1, -2


class _Encoder:
    """Numbers prediction contexts, semantic contexts and DFA states as first met, each after
    what it refers to (parents before children), so that loading builds them in file order."""

    def __init__(self) -> None:
        from antlr4.atn.ATNSimulator import ATNSimulator
        from antlr4.atn.SemanticContext import SemanticContext
        from antlr4.PredictionContext import PredictionContext

        self.special = {
            id(None): _NONE,
            id(SemanticContext.NONE): _NONE,
            id(PredictionContext.EMPTY): _SINGLETON,
            id(ATNSimulator.ERROR): _SINGLETON,
        }
        self.contexts: list[list[Any]] = []
        self.semantics: list[list[Any]] = []
        self.states: list[list[Any]] = []
        self.numbers: dict[int, int] = {}

    def context(self, context: Any) -> int:
        """A prediction context: ``[parent]`` + return state, or two lists for an array."""
        from antlr4.PredictionContext import ArrayPredictionContext, SingletonPredictionContext

        if id(context) in self.special:
            return self.special[id(context)]
        if id(context) not in self.numbers:
            record: list[Any]
            if isinstance(context, ArrayPredictionContext):
                if not isinstance(context.parents, list):
                    raise TypeError("array context with non-list parents")
                record = [[self.context(p) for p in context.parents], list(context.returnStates)]
            elif isinstance(context, SingletonPredictionContext):
                record = [self.context(context.parentCtx), context.returnState]
            else:
                raise TypeError(f"unexpected context {type(context).__name__}")
            self.numbers[id(context)] = len(self.contexts)
            self.contexts.append(record)
        return self.numbers[id(context)]

    def semantic(self, semantic: Any) -> int:
        """A semantic context: ``["p", rule, index, dependent]``, ``["q", precedence]`` or
        ``["and"|"or", operands]``."""
        from antlr4.atn.SemanticContext import AND, OR, PrecedencePredicate, Predicate

        if id(semantic) in self.special:
            return self.special[id(semantic)]
        if id(semantic) not in self.numbers:
            record: list[Any]
            if isinstance(semantic, Predicate):
                record = ["p", semantic.ruleIndex, semantic.predIndex, semantic.isCtxDependent]
            elif isinstance(semantic, PrecedencePredicate):
                record = ["q", semantic.precedence]
            elif isinstance(semantic, (AND, OR)):
                kind = "and" if isinstance(semantic, AND) else "or"
                record = [kind, [self.semantic(o) for o in semantic.opnds]]
            else:
                raise TypeError(f"unexpected semantic context {type(semantic).__name__}")
            self.numbers[id(semantic)] = len(self.semantics)
            self.semantics.append(record)
        return self.numbers[id(semantic)]

    def state(self, state: Any) -> int:
        """A DFA state, numbered now; its record (configurations, flags, edges) is written by
        :meth:`fill`, as edges can lead back to it."""
        if id(state) in self.special:
            return self.special[id(state)]
        if id(state) not in self.numbers:
            self.numbers[id(state)] = len(self.states)
            self.states.append([state])
        return self.numbers[id(state)]

    def fill(self) -> None:
        done = 0
        while done < len(self.states):  # a record can number further states
            state = self.states[done][0]
            self.states[done] = self.record(state)
            done += 1

    def record(self, state: Any) -> list[Any]:
        configs = state.configs
        if state.lexerActionExecutor is not None:
            raise TypeError("a lexer DFA state")
        return [
            state.stateNumber,
            [
                [
                    c.state.stateNumber,
                    c.alt,
                    self.context(c.context),
                    self.semantic(c.semanticContext),
                    c.reachesIntoOuterContext,
                    c.precedenceFilterSuppressed,
                ]
                for c in configs.configs
            ],
            [
                configs.fullCtx,
                configs.readonly,
                configs.uniqueAlt,
                None if configs.conflictingAlts is None else sorted(configs.conflictingAlts),
                configs.hasSemanticContext,
                configs.dipsIntoOuterContext,
            ],
            None
            if state.edges is None
            else [len(state.edges)]
            + [[i, self.state(e)] for i, e in enumerate(state.edges) if e is not None],
            state.isAcceptState,
            state.prediction,
            state.requiresFullContext,
            None
            if state.predicates is None
            else [[self.semantic(p.pred), p.alt] for p in state.predicates],
        ]


def dump(path: Path) -> int:
    """Write this process's parser DFAs to ``path``; return the number of DFA states."""
    dfas = _parser().decisionsToDFA
    encoder = _Encoder()
    tables = [[[encoder.state(s) for s in dfa._states], encoder.state(dfa.s0)] for dfa in dfas]
    encoder.fill()
    body = {
        "fingerprint": fingerprint(),
        "contexts": encoder.contexts,
        "semantics": encoder.semantics,
        "states": encoder.states,
        "dfas": tables,
    }
    with gzip.open(path, "wt", encoding="utf-8", compresslevel=9) as out:
        json.dump(body, out, separators=(",", ":"))
    return sum(len(dfa._states) for dfa in dfas)


def load(path: Path = SNAPSHOT) -> bool:
    """Fill this process's (still empty) parser DFAs from ``path``. False, and the DFAs left
    as they were, when the file is missing, unreadable or damaged, was written for another
    parser or runtime, or a parse has already started filling the DFAs: a worker never fails
    to start for its snapshot, it only starts cold."""
    parser = _parser()
    if any(dfa._states for dfa in parser.decisionsToDFA):
        return False
    try:
        with gzip.open(path, "rt", encoding="utf-8") as source:
            body = json.load(source)
    except (OSError, ValueError, EOFError, zlib.error):
        return False
    if not isinstance(body, dict) or body.get("fingerprint") != fingerprint():
        return False
    if len(body.get("dfas", ())) != len(parser.decisionsToDFA):
        return False
    try:
        states = _build(parser, body)
        tables = [
            ({states[n]: states[n] for n in numbers}, states[s0]) for numbers, s0 in body["dfas"]
        ]
    except Exception:  # a damaged file (any shape its records may take): start cold, as before
        return False
    for dfa, (table, start) in zip(parser.decisionsToDFA, tables, strict=True):
        dfa._states, dfa.s0 = table, start
    return True


def _build(parser: Any, body: dict[str, Any]) -> list[Any]:
    """The DFA states of the records, built into ANTLR objects (contexts with ANTLR's own
    constructors, which compute the hash codes ANTLR caches), indexed by reference code."""
    from antlr4.atn.ATNConfig import ATNConfig
    from antlr4.atn.ATNConfigSet import ATNConfigSet
    from antlr4.atn.ATNSimulator import ATNSimulator
    from antlr4.atn.SemanticContext import AND, OR, PrecedencePredicate, Predicate, SemanticContext
    from antlr4.dfa.DFAState import DFAState, PredPrediction
    from antlr4.PredictionContext import (
        ArrayPredictionContext,
        PredictionContext,
        SingletonPredictionContext,
    )

    def referred(table: list[Any], none: Any, singleton: Any = None) -> list[Any]:
        """``table`` indexed by reference codes: -1 and -2 read the two entries appended."""
        return [*table, singleton, none]

    cache = parser.sharedContextCache
    contexts: list[Any] = []
    specials = {_NONE: None, _SINGLETON: PredictionContext.EMPTY}
    for parent, returns in body["contexts"]:
        if isinstance(parent, list):
            parents = [contexts[p] if p >= 0 else specials[p] for p in parent]
            made = ArrayPredictionContext(parents, returns)
        else:
            made = SingletonPredictionContext(
                contexts[parent] if parent >= 0 else specials[parent], returns
            )
        contexts.append(cache.add(made))
    contexts = referred(contexts, None, PredictionContext.EMPTY)

    semantics: list[Any] = []
    for record in body["semantics"]:
        if record[0] == "p":
            made = Predicate(record[1], record[2], record[3])
        elif record[0] == "q":
            made = PrecedencePredicate(record[1])
        else:
            kind = AND if record[0] == "and" else OR
            made = kind.__new__(kind)
            made.opnds = [semantics[o] if o >= 0 else SemanticContext.NONE for o in record[1]]
        semantics.append(made)
    semantics = referred(semantics, SemanticContext.NONE)

    atn_states = parser.atn.states
    new_config = ATNConfig.__new__
    states = referred(
        [DFAState.__new__(DFAState) for _ in body["states"]], None, ATNSimulator.ERROR
    )
    for made, record in zip(states, body["states"], strict=False):
        number, config_records, flags, edges, accept, prediction, full, predicates = record
        configs = ATNConfigSet.__new__(ATNConfigSet)
        configs.configs = []
        append = configs.configs.append
        for s, alt, ctx, sem, reaches, suppressed in config_records:
            config = new_config(ATNConfig)
            config.state = atn_states[s]
            config.alt = alt
            config.context = contexts[ctx]
            config.semanticContext = semantics[sem]
            config.reachesIntoOuterContext = reaches
            config.precedenceFilterSuppressed = suppressed
            append(config)
        (
            configs.fullCtx,
            configs.readonly,
            configs.uniqueAlt,
            conflicting,
            configs.hasSemanticContext,
            configs.dipsIntoOuterContext,
        ) = flags
        configs.conflictingAlts = None if conflicting is None else set(conflicting)
        configs.cachedHashCode = -1
        configs.configLookup = None
        if not configs.readonly:  # a precedence DFA's start set, kept for information only
            configs.configLookup = {}
            for config in configs.configs:
                configs.getOrAdd(config)
        made.stateNumber = number
        made.configs = configs
        made.edges = None
        if edges is not None:
            made.edges = [None] * edges[0]
            for symbol, target in edges[1:]:
                made.edges[symbol] = states[target]
        made.isAcceptState = accept
        made.prediction = prediction
        made.lexerActionExecutor = None
        made.requiresFullContext = full
        made.predicates = None
        if predicates is not None:
            made.predicates = [PredPrediction(semantics[p], alt) for p, alt in predicates]
    return states
